"""Custom serialization and aliases on output."""

from datetime import date

from pydantic import BaseModel, Field, field_serializer


class Invoice(BaseModel):
    number: str = Field(serialization_alias="invoiceNumber")
    issued: date
    amount_cents: int

    @field_serializer("issued")
    def format_issued(self, value: date) -> str:
        return value.strftime("%d/%m/%Y")


def main() -> None:
    invoice = Invoice(number="A-1", issued=date(2024, 1, 31), amount_cents=1999)
    print(invoice.model_dump(by_alias=True))
    print(invoice.model_dump_json(indent=2))
    print(Invoice.model_construct(number="B", issued=date.today(), amount_cents=1).number)


if __name__ == "__main__":
    main()
