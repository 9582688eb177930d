"""Define a model, validate input, dump it back."""

from datetime import datetime

from pydantic import BaseModel, Field, ValidationError


class User(BaseModel):
    id: int
    name: str = Field(min_length=1, max_length=50)
    email: str
    signup_ts: datetime | None = None
    tags: list[str] = Field(default_factory=list)


def main() -> None:
    user = User(id=1, name="Ada", email="ada@example.com", tags=["admin"])
    print(user.model_dump(), user.model_dump_json(exclude_none=True))
    try:
        User(id="x", name="", email="e")
    except ValidationError as exc:
        print(exc.error_count(), exc.errors()[0]["loc"])
    copy = user.model_copy(update={"name": "Grace"})
    print(copy.name, user.model_fields_set)


if __name__ == "__main__":
    main()
