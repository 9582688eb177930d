import yaml

data = yaml.safe_load("a: 1\nb: [1, 2]")
print(yaml.safe_dump(data, default_flow_style=False, sort_keys=True))
docs = list(yaml.safe_load_all("a: 1\n---\nb: 2"))
text = yaml.dump({"x": 1}, Dumper=yaml.SafeDumper, indent=2)
loaded = yaml.load(text, Loader=yaml.SafeLoader)
try:
    yaml.safe_load("a: [")
except yaml.YAMLError as exc:
    print(type(exc))
