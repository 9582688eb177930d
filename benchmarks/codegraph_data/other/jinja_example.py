from jinja2 import DictLoader, Environment, StrictUndefined, Template, select_autoescape

env = Environment(
    loader=DictLoader({"index.html": "Hello {{ name }}"}),
    autoescape=select_autoescape(["html"]),
    undefined=StrictUndefined,
    trim_blocks=True,
)
env.filters["shout"] = lambda s: s.upper()
template = env.get_template("index.html")
print(template.render(name="Ada"))
print(Template("{{ x }}").render(x=1))
t2 = env.from_string("{{ a | shout }}")
print(t2.render({"a": "b"}))
print(env.list_templates())
