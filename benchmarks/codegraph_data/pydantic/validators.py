"""Field and model validators."""

from typing import Self

from pydantic import BaseModel, ValidationError, field_validator, model_validator


class Signup(BaseModel):
    username: str
    password: str
    password_repeat: str

    @field_validator("username")
    @classmethod
    def username_alphanumeric(cls, value: str) -> str:
        if not value.isalnum():
            raise ValueError("must be alphanumeric")
        return value.lower()

    @model_validator(mode="after")
    def passwords_match(self) -> Self:
        if self.password != self.password_repeat:
            raise ValueError("passwords do not match")
        return self


def main() -> None:
    ok = Signup(username="Ada", password="x", password_repeat="x")
    print(ok.username)
    try:
        Signup.model_validate({"username": "a b", "password": "x", "password_repeat": "y"})
    except ValidationError as exc:
        print(len(exc.errors()), exc.title)


if __name__ == "__main__":
    main()
