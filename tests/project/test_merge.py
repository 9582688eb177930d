"""A re-scan follows the code but never overwrites what people or the agent wrote."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import yaml

from contextbase.project.profile import Issue, load_profile, save_profile
from contextbase.project.service import ProjectService
from tests.project.conftest import FakeClock, write_tree


def test_rescan_keeps_human_edits_and_follows_the_code(
    shop: Path, make_service: Callable[..., ProjectService], clock: FakeClock
) -> None:
    service = make_service(shop)
    profile, created = service.scan()
    assert created

    # A person edits the file: knowledge, a description, the architecture text, a key file note.
    path = service.profile_file
    edited = load_profile(path)
    services = edited.modules["services"]
    services.patterns = ["Services never import routes"]
    services.business_rules = ["An order needs at least one item"]
    services.common_issues = [
        Issue(
            description="Double submit",
            solution="Idempotency key",
            session_id="s1",
            discovered_at=profile.metadata.created_at,
        )
    ]
    edited.modules["models"].description = "SQLAlchemy models, one file per table."
    edited.modules["routes"].key_files[0].description = "Mounts every router"
    edited.architecture.description = "Routes call services; services call models."
    edited.modules["payments"] = edited.modules["models"].model_copy(
        update={"name": "payments", "path": None, "key_files": [], "description": "Planned."}
    )
    del edited.modules["shop"]  # someone removed a module they do not want listed
    save_profile(edited, path)

    # The code changes: a new dependency version, a new layer, a deleted one.
    clock.advance(days=1)
    (shop / "pyproject.toml").write_text(
        '[project]\nname = "shop"\nrequires-python = ">=3.12"\n'
        'dependencies = ["fastapi>=0.115", "sqlalchemy>=2.0"]\n'
    )
    write_tree(
        shop,
        {
            "src/shop/schemas/__init__.py": '"""Request and response schemas."""\n',
            "src/shop/schemas/order.py": "from shop.models.order import Order\n",
        },
    )
    shutil.rmtree(shop / "src/shop/routes")

    merged, created = service.scan()
    assert not created
    assert merged.tech.stack == ["FastAPI 0.115", "SQLAlchemy 2"]  # not edited: follows the code
    assert merged.tech.runtime == "Python 3.12"
    assert merged.architecture.description == "Routes call services; services call models."
    assert merged.modules["services"].patterns == ["Services never import routes"]
    assert merged.modules["services"].business_rules == ["An order needs at least one item"]
    assert merged.modules["services"].common_issues[0].solution == "Idempotency key"
    assert merged.modules["models"].description == "SQLAlchemy models, one file per table."
    assert merged.modules["schemas"].description == "Request and response schemas."  # new
    assert merged.modules["schemas"].dependencies == ["models"]
    assert "routes" not in merged.modules  # its folder is gone and nobody wrote into it
    assert merged.modules["payments"].description == "Planned."  # added by a person
    assert "shop" not in merged.modules  # deleted by a person: not brought back
    assert merged.metadata.created_at == profile.metadata.created_at
    assert merged.metadata.last_scan_at > profile.metadata.last_scan_at
    assert load_profile(path) == merged


def test_a_module_with_knowledge_survives_its_folder(
    shop: Path, make_service: Callable[..., ProjectService]
) -> None:
    service = make_service(shop)
    service.scan()
    edited = load_profile(service.profile_file)
    edited.modules["routes"].business_rules = ["Every route checks the API key"]
    edited.modules["routes"].key_files[0].description = "note"
    save_profile(edited, service.profile_file)
    shutil.rmtree(shop / "src/shop/routes")
    merged, _ = service.scan()
    assert merged.modules["routes"].business_rules == ["Every route checks the API key"]


def test_without_the_previous_scan_everything_on_disk_counts_as_edited(
    shop: Path, make_service: Callable[..., ProjectService]
) -> None:
    service = make_service(shop)
    service.scan()
    data = yaml.safe_load(service.profile_file.read_text())
    data["tech"]["stack"] = ["FastAPI"]
    data["modules"]["models"]["description"] = ""
    service.profile_file.write_text(yaml.safe_dump(data))
    (service.context_dir / "last-scan.json").unlink()
    merged, _ = service.scan()
    assert merged.tech.stack == ["FastAPI"]
    assert merged.modules["models"].description == "Database models."  # empty: refilled
