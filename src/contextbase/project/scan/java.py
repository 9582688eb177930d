"""Java and Kotlin projects: Maven (pom.xml) and Gradle (build.gradle[.kts])."""

from __future__ import annotations

import posixpath
import re
import xml.etree.ElementTree as ET
from typing import Any

from contextbase.project.scan.files import FileTree
from contextbase.project.scan.model import Detection, join_path, stack_entry

ECOSYSTEM = "java"

# (group prefix, artifact prefix) → (label, roles); the first match wins.
FRAMEWORKS: list[tuple[str, str, str, set[str]]] = [
    ("org.springframework.boot", "spring-boot-starter-web", "Spring Boot", {"backend"}),
    ("org.springframework.boot", "spring-boot-starter-thymeleaf", "Spring Boot", {"web"}),
    ("org.springframework.boot", "", "Spring Boot", set()),
    ("org.springframework", "spring-webmvc", "Spring MVC", {"backend"}),
    ("io.quarkus", "quarkus-rest", "Quarkus", {"backend"}),
    ("io.quarkus", "", "Quarkus", set()),
    ("io.micronaut", "micronaut-http-server", "Micronaut", {"backend"}),
    ("io.micronaut", "", "Micronaut", set()),
    ("io.dropwizard", "", "Dropwizard", {"backend"}),
    ("io.javalin", "", "Javalin", {"backend"}),
    ("io.ktor", "ktor-server", "Ktor", {"backend"}),
    ("jakarta.servlet", "", "Jakarta Servlet", {"backend"}),
    ("javax.servlet", "", "Java Servlet", {"backend"}),
    ("info.picocli", "", "picocli", {"cli"}),
    ("org.hibernate", "", "Hibernate", set()),
    ("org.jetbrains.kotlin", "kotlin-stdlib", "Kotlin", set()),
]

_GRADLE_DEP = re.compile(
    r"""\b(?:implementation|api|compileOnly|runtimeOnly|compile)\s*\(?\s*['"]([\w.\-]+):([\w.\-]+)(?::([^'"@]+))?['"]"""
)
_GRADLE_PLUGIN = re.compile(
    r"""id\s*\(?\s*['"]([\w.\-]+)['"]\s*\)?\s*(?:version\s*\(?\s*['"]([^'"]+)['"])?"""
)
_GRADLE_KOTLIN = re.compile(r"""kotlin\s*\(\s*['"]jvm['"]\s*\)\s*version\s*['"]([^'"]+)['"]""")
_GRADLE_JAVA = re.compile(
    r"(?:JavaLanguageVersion\.of\(\s*(\d+)|(?:source|target)Compatibility\s*=\s*['\"]?"
    r"(?:JavaVersion\.VERSION_)?(1_8|\d+))"
)
_GRADLE_INCLUDE = re.compile(r"""\binclude\s*\(?((?:\s*['"][^'"]+['"]\s*,?)+)\)?""")
_GRADLE_NAME = re.compile(r"""rootProject\.name\s*=\s*['"]([^'"]+)['"]""")
_QUOTED = re.compile(r"""['"]([^'"]+)['"]""")
_PROPERTY = re.compile(r"\$\{([^}]+)\}")


def detect(tree: FileTree, folder: str) -> Detection | None:
    pom = join_path(folder, "pom.xml")
    gradle = tree.first(join_path(folder, "build.gradle.kts"), join_path(folder, "build.gradle"))
    settings = tree.first(
        join_path(folder, "settings.gradle.kts"), join_path(folder, "settings.gradle")
    )
    if tree.has(pom):
        found = Detection(ECOSYSTEM, folder, pom, "maven")
        deps = _read_pom(tree, pom, found)
    elif gradle or settings:
        found = Detection(ECOSYSTEM, folder, gradle or settings or "", "gradle")
        deps = _read_gradle(tree, gradle, settings, found)
    else:
        return None
    for group, artifact, version in deps:
        for prefix, artifact_prefix, label, roles in FRAMEWORKS:
            if group.startswith(prefix) and artifact.startswith(artifact_prefix):
                found.add_stack(stack_entry(label, version or found.extra.get("boot_version")))
                found.roles |= roles
                break
    if any(f.endswith(".kt") for f in tree.under(join_path(folder, "src"))):
        found.add_stack("Kotlin")
    found.runtime = found.runtime or "Java"
    found.source_roots = source_roots(tree, folder)
    found.library = not found.roles
    found.extra["java_roots"] = [
        join_path(folder, f"src/main/{language}")
        for language in ("java", "kotlin")
        if tree.under(join_path(folder, f"src/main/{language}"))
    ]
    return found


def _text(element: ET.Element | None, name: str) -> str | None:
    if element is None:
        return None
    for child in element:
        if child.tag.rsplit("}", 1)[-1] == name:
            return (child.text or "").strip()
    return None


def _children(element: ET.Element | None, name: str) -> list[ET.Element]:
    if element is None:
        return []
    return [child for child in element if child.tag.rsplit("}", 1)[-1] == name]


def _read_pom(tree: FileTree, pom: str, found: Detection) -> list[tuple[str, str, str | None]]:
    try:
        root = ET.fromstring(tree.read(pom))
    except ET.ParseError:
        return []
    properties = {
        child.tag.rsplit("}", 1)[-1]: (child.text or "").strip()
        for prop in _children(root, "properties")
        for child in prop
    }

    def resolve(value: str | None) -> str | None:
        return _PROPERTY.sub(lambda m: properties.get(m.group(1), ""), value) if value else None

    found.name = _text(root, "name") or _text(root, "artifactId")
    found.description = _text(root, "description")
    parent = _children(root, "parent")
    if parent and (_text(parent[0], "artifactId") or "").startswith("spring-boot"):
        found.extra["boot_version"] = _text(parent[0], "version")
    java = next(
        (
            properties[key]
            for key in ("java.version", "maven.compiler.release", "maven.compiler.source")
            if properties.get(key)
        ),
        None,
    )
    if java:
        found.runtime = f"Java {resolve(java)}"
    for modules in _children(root, "modules"):
        for module in _children(modules, "module"):
            member = posixpath.normpath(join_path(found.folder, (module.text or "").strip()))
            if tree.has(member + "/pom.xml"):
                found.workspaces.append(member)
    deps: list[tuple[str, str, str | None]] = []
    for section in (root, *_children(root, "dependencyManagement")):
        for block in _children(section, "dependencies"):
            for dep in _children(block, "dependency"):
                group, artifact = _text(dep, "groupId") or "", _text(dep, "artifactId") or ""
                deps.append((group, artifact, resolve(_text(dep, "version"))))
    return deps


def _read_gradle(
    tree: FileTree, gradle: str | None, settings: str | None, found: Detection
) -> list[tuple[str, str, str | None]]:
    text = tree.read(gradle) if gradle else ""
    deps = [(g, a, v or None) for g, a, v in _GRADLE_DEP.findall(text)]
    for plugin, version in _GRADLE_PLUGIN.findall(text):
        if plugin == "org.springframework.boot":
            found.extra["boot_version"] = version or None
        if plugin == "application":
            found.roles.add("cli")
    kotlin = _GRADLE_KOTLIN.search(text)
    if kotlin:
        found.add_stack(stack_entry("Kotlin", kotlin.group(1)))
    java = _GRADLE_JAVA.search(text)
    if java:
        found.runtime = f"Java {(java.group(1) or java.group(2)).replace('1_8', '8')}"
    settings_text = tree.read(settings) if settings else ""
    name = _GRADLE_NAME.search(settings_text)
    found.name = name.group(1) if name else None
    for group in _GRADLE_INCLUDE.findall(settings_text):
        for project in _QUOTED.findall(group):
            member = join_path(found.folder, project.strip(":").replace(":", "/"))
            if tree.under(member) and member not in found.workspaces:
                found.workspaces.append(member)
    return deps


def source_roots(tree: FileTree, folder: str) -> list[str]:
    """The base package folder under src/main/java (or kotlin): where the modules start."""
    roots: list[str] = []
    for language in ("java", "kotlin"):
        current = join_path(folder, f"src/main/{language}")
        if not tree.under(current):
            continue
        while not tree.child_files(current) and len(tree.child_dirs(current)) == 1:
            current = tree.child_dirs(current)[0]
        roots.append(current)
    return roots or [folder]


_IMPORT = re.compile(r"^import\s+(?:static\s+)?([\w.]+)(?:\.\*)?\s*;?", re.M)


def import_targets(rel: str, text: str, context: dict[str, Any]) -> list[str]:
    """Project paths named by the imports of a Java or Kotlin file."""
    roots: list[str] = context.get("java_roots", [])
    targets: list[str] = []
    for dotted in _IMPORT.findall(text):
        path = dotted.replace(".", "/")
        targets += [f"{root}/{path}" for root in roots]
    return targets
