import jsonschema
from jsonschema import Draft202012Validator, ValidationError, validate

schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
validate(instance={"a": 1}, schema=schema)
validator = Draft202012Validator(schema)
errors = sorted(validator.iter_errors({"a": "x"}), key=lambda e: e.path)
for error in errors:
    print(error.message, list(error.path))
print(validator.is_valid({"a": 2}))
try:
    jsonschema.validate({"b": 1}, schema)
except ValidationError as exc:
    print(exc.message)
