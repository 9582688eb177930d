"""Validate plain types with TypeAdapter."""

from pydantic import TypeAdapter, ValidationError


def main() -> None:
    ints = TypeAdapter(list[int])
    print(ints.validate_python(["1", 2, 3]))
    print(ints.dump_json([1, 2]))
    print(ints.validate_json("[4, 5]"), ints.json_schema())
    try:
        ints.validate_python(["x"])
    except ValidationError as exc:
        print(exc.errors()[0]["type"])


if __name__ == "__main__":
    main()
