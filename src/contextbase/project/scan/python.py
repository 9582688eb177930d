"""Python projects: pyproject.toml (PEP 621, Poetry, PDM, uv), setup.cfg, setup.py,
requirements files and Pipfile."""

from __future__ import annotations

import configparser
import posixpath
import re
import tomllib
from typing import Any

from contextbase.project.scan.files import FileTree
from contextbase.project.scan.model import Detection, join_path, stack_entry

ECOSYSTEM = "python"

FRAMEWORKS: dict[str, tuple[str, set[str]]] = {
    "django": ("Django", {"web"}),
    "djangorestframework": ("Django REST framework", {"backend"}),
    "fastapi": ("FastAPI", {"backend"}),
    "flask": ("Flask", {"backend"}),
    "starlette": ("Starlette", {"backend"}),
    "litestar": ("Litestar", {"backend"}),
    "sanic": ("Sanic", {"backend"}),
    "quart": ("Quart", {"backend"}),
    "falcon": ("Falcon", {"backend"}),
    "tornado": ("Tornado", {"backend"}),
    "bottle": ("Bottle", {"backend"}),
    "pyramid": ("Pyramid", {"web"}),
    "aiohttp": ("aiohttp", set()),
    "streamlit": ("Streamlit", {"web"}),
    "gradio": ("Gradio", {"web"}),
    "dash": ("Dash", {"web"}),
    "click": ("Click", set()),
    "typer": ("Typer", set()),
    "celery": ("Celery", set()),
    "sqlalchemy": ("SQLAlchemy", set()),
    "pydantic": ("Pydantic", set()),
    "numpy": ("NumPy", set()),
    "pandas": ("pandas", set()),
    "torch": ("PyTorch", set()),
    "tensorflow": ("TensorFlow", set()),
    "scikit-learn": ("scikit-learn", set()),
}
MANIFESTS = ("pyproject.toml", "setup.cfg", "setup.py", "requirements.txt", "Pipfile")
NOT_PACKAGES = frozenset({"tests", "test", "docs", "doc", "examples", "scripts", "benchmarks"})

_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$")
_SETUP_CALL_STR = re.compile(r"""\b(name|description|python_requires)\s*=\s*['"]([^'"]+)['"]""")
_SETUP_LIST = re.compile(r"install_requires\s*=\s*\[([^\]]*)\]", re.S)
_SCRIPT = re.compile(r"^\s*([\w.\-]+)\s*=\s*[\w.]+\s*:\s*[\w.]+", re.M)
_QUOTED_SCRIPT = re.compile(r"""['"]\s*([\w.\-]+)\s*=\s*[\w.]+\s*:\s*[\w.]+\s*['"]""")
_QUOTED = re.compile(r"""['"]([^'"]+)['"]""")
_PY_VERSION = re.compile(r"([23])\.(\d+)")


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def detect(tree: FileTree, folder: str) -> Detection | None:
    present = [m for m in MANIFESTS if tree.has(join_path(folder, m))]
    django = tree.has(join_path(folder, "manage.py"))
    if not present and not django:
        return None
    manifest = join_path(folder, present[0] if present else "manage.py")
    found = Detection(ECOSYSTEM, folder, manifest, package_manager="pip")
    deps: dict[str, str] = {}
    scripts: set[str] = set()
    pyproject = _toml(tree, join_path(folder, "pyproject.toml"))
    if pyproject:
        scripts |= _read_pyproject(pyproject, found, deps)
    if tree.has(join_path(folder, "setup.cfg")):
        scripts |= _read_setup_cfg(tree.read(join_path(folder, "setup.cfg")), found, deps)
    if tree.has(join_path(folder, "setup.py")):
        scripts |= _read_setup_py(tree.read(join_path(folder, "setup.py")), found, deps)
    for rel in tree.child_files(folder):
        base = posixpath.basename(rel)
        if base.startswith("requirements") and base.endswith((".txt", ".in")) and "dev" not in base:
            _read_requirements(tree.read(rel), deps)
    pipfile = _toml(tree, join_path(folder, "Pipfile"))
    if pipfile:
        for name, spec in (pipfile.get("packages") or {}).items():
            deps.setdefault(normalise(name), spec if isinstance(spec, str) else "")
    found.package_manager = _package_manager(tree, folder, pyproject or {})
    found.runtime = found.runtime or _runtime_file(tree, folder) or "Python 3"
    if django:
        deps.setdefault("django", "")
    for name, spec in deps.items():
        if name in FRAMEWORKS:
            label, roles = FRAMEWORKS[name]
            found.add_stack(stack_entry(label, spec))
            found.roles |= roles
    if "flask" in deps and tree.under(join_path(folder, "templates")):
        found.roles.add("web")
    if "djangorestframework" in deps:
        found.roles.discard("web")
    packages = _packages(tree, folder)
    found.library = bool(pyproject or tree.has(join_path(folder, "setup.py")))
    # A library may ship helper commands; a program is the command named after it.
    names = {normalise(n) for n in [found.name or "", *packages] if n}
    runnable = any(tree.has(join_path(p, "__main__.py")) for p in packages.values())
    if names & {normalise(s) for s in scripts} or (runnable and not found.library):
        found.roles.add("cli")
    found.source_roots = [folder] if django or not packages else sorted(packages.values())
    found.extra["python_packages"] = packages
    return found


def _toml(tree: FileTree, rel: str) -> dict[str, Any] | None:
    if not tree.has(rel):
        return None
    try:
        return tomllib.loads(tree.read(rel))
    except tomllib.TOMLDecodeError:
        return None


def _read_pyproject(data: dict[str, Any], found: Detection, deps: dict[str, str]) -> set[str]:
    project = data.get("project") or {}
    poetry = (data.get("tool") or {}).get("poetry") or {}
    found.name = project.get("name") or poetry.get("name")
    description = project.get("description") or poetry.get("description")
    found.description = description if isinstance(description, str) else None
    for requirement in project.get("dependencies") or []:
        _add_requirement(requirement, deps)
    for name, spec in (poetry.get("dependencies") or {}).items():
        version = spec if isinstance(spec, str) else (spec or {}).get("version", "")
        if normalise(name) == "python":
            found.runtime = _python_runtime(version)
        else:
            deps.setdefault(normalise(name), version or "")
    if project.get("requires-python"):
        found.runtime = _python_runtime(project["requires-python"])
    return {*(project.get("scripts") or {}), *(poetry.get("scripts") or {})}


def _read_setup_cfg(text: str, found: Detection, deps: dict[str, str]) -> set[str]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return set()
    found.name = found.name or parser.get("metadata", "name", fallback=None)
    found.description = found.description or parser.get("metadata", "description", fallback=None)
    requires = parser.get("options", "install_requires", fallback="")
    for line in requires.splitlines():
        _add_requirement(line, deps)
    if not found.runtime and parser.get("options", "python_requires", fallback=None):
        found.runtime = _python_runtime(parser.get("options", "python_requires"))
    return set(_SCRIPT.findall(parser.get("options.entry_points", "console_scripts", fallback="")))


def _read_setup_py(text: str, found: Detection, deps: dict[str, str]) -> set[str]:
    for key, value in _SETUP_CALL_STR.findall(text):
        if key == "name" and not found.name:
            found.name = value
        elif key == "description" and not found.description:
            found.description = value
        elif key == "python_requires" and not found.runtime:
            found.runtime = _python_runtime(value)
    for block in _SETUP_LIST.findall(text):
        for requirement in _QUOTED.findall(block):
            _add_requirement(requirement, deps)
    return set(_QUOTED_SCRIPT.findall(text))


def _read_requirements(text: str, deps: dict[str, str]) -> None:
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith(("-", "git+", "http:", "https:", ".")):
            _add_requirement(line, deps)


def _add_requirement(text: str, deps: dict[str, str]) -> None:
    match = _REQUIREMENT.match(text.split(";", 1)[0])
    if match:
        deps.setdefault(normalise(match.group(1)), match.group(3).strip())


def _python_runtime(spec: str) -> str:
    """The lowest Python a ``>=3.9, !=3.9.1`` style spec admits (exclusions and caps skipped)."""
    for clause in re.split(r"[,|]", spec or ""):
        clause = clause.strip()
        if clause.startswith(("!=", "<")):
            continue
        match = _PY_VERSION.search(clause)
        if match:
            return f"Python {match.group(1)}.{match.group(2)}"
    return "Python 3"


def _runtime_file(tree: FileTree, folder: str) -> str | None:
    rel = join_path(folder, ".python-version")
    if tree.has(rel):
        match = _PY_VERSION.search(tree.read(rel, 200))
        if match:
            return f"Python {match.group(1)}.{match.group(2)}"
    return None


def _package_manager(tree: FileTree, folder: str, pyproject: dict[str, Any]) -> str:
    tool = pyproject.get("tool") or {}
    if tree.has(join_path(folder, "uv.lock")) or "uv" in tool:
        return "uv"
    if tree.has(join_path(folder, "poetry.lock")) or "poetry" in tool:
        return "poetry"
    if tree.has(join_path(folder, "pdm.lock")) or "pdm" in tool:
        return "pdm"
    if tree.has(join_path(folder, "Pipfile")):
        return "pipenv"
    if tree.has(join_path(folder, "requirements.in")):
        return "pip-tools"
    return "pip"


def _packages(tree: FileTree, folder: str) -> dict[str, str]:
    """Top-level import packages: ``{import name: folder}``, in ``src/`` or beside the manifest."""
    packages: dict[str, str] = {}
    for base in (join_path(folder, "src"), folder):
        for child in tree.child_dirs(base):
            name = posixpath.basename(child)
            if (
                name.isidentifier()
                and name not in NOT_PACKAGES
                and tree.has(child + "/__init__.py")
            ):
                packages.setdefault(name, child)
        if packages:
            break
    return packages


def workspace_members(tree: FileTree, found: Detection) -> list[str]:
    """Members of a uv workspace (``[tool.uv.workspace] members``)."""
    data = _toml(tree, join_path(found.folder, "pyproject.toml")) or {}
    workspace = ((data.get("tool") or {}).get("uv") or {}).get("workspace") or {}
    members: list[str] = []
    for pattern in workspace.get("members") or []:
        for folder in tree.glob_dirs(join_path(found.folder, pattern)):
            if tree.has(folder + "/pyproject.toml"):
                members.append(folder)
    return members


_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]+)"
    r"|import[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*))",
    re.M,
)


def import_targets(rel: str, text: str, context: dict[str, Any]) -> list[str]:
    """Project paths the imports of a Python file may point at (packages, sub-modules)."""
    packages: dict[str, str] = context.get("python_packages", {})
    here = posixpath.dirname(rel)
    targets: list[str] = []
    for source, names, plain in _IMPORT.findall(text):
        if plain:
            for dotted in plain.split(","):
                targets += _absolute(dotted.strip(), packages)
            continue
        imported = [n.split(" as ")[0].strip() for n in names.strip("()").split(",")]
        level = len(source) - len(source.lstrip("."))
        if level:
            base = here
            for _ in range(level - 1):
                base = posixpath.dirname(base)
            dotted = source[level:]
            path = join_path(base, dotted.replace(".", "/")) if dotted else base
            bases = [path]
        else:
            bases = _absolute(source, packages)
        for path in bases:
            targets.append(path)
            targets += [f"{path}/{name}" for name in imported if name.isidentifier()]
    return targets


def _absolute(dotted: str, packages: dict[str, str]) -> list[str]:
    top, _, rest = dotted.partition(".")
    if top not in packages:
        return []
    return [join_path(packages[top], rest.replace(".", "/")) if rest else packages[top]]
