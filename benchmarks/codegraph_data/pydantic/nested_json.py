"""Nested models parsed from JSON and a JSON schema."""

import json

from pydantic import BaseModel, ConfigDict


class Address(BaseModel):
    street: str
    city: str
    zip_code: str | None = None


class Customer(BaseModel):
    model_config = ConfigDict(str_strip_whitespace=True, frozen=True)

    name: str
    addresses: list[Address]


def main() -> None:
    raw = '{"name": " Ada ", "addresses": [{"street": "Main 1", "city": "Paris"}]}'
    customer = Customer.model_validate_json(raw)
    print(customer.name, customer.addresses[0].city)
    schema = Customer.model_json_schema()
    print(json.dumps(schema)[:40], list(Customer.model_fields))
    print(customer.model_dump(mode="json", exclude={"addresses"}))


if __name__ == "__main__":
    main()
