"""Configuration with aliases, secrets and defaults."""

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr


class DatabaseConfig(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    host: str = "localhost"
    port: int = Field(default=5432, ge=1, le=65535)
    user: str = Field(validation_alias=AliasChoices("user", "username"))
    password: SecretStr


def main() -> None:
    config = DatabaseConfig(username="app", password="s3cret", port=6432)
    print(config.user, config.port, config.password.get_secret_value()[:2])
    print(config.model_dump(exclude={"password"}))
    print(DatabaseConfig.model_validate({"user": "x", "password": "y"}).host)


if __name__ == "__main__":
    main()
