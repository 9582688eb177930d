"""Fixtures of the project-memory tests: projects written on the fly, a clock tests can move."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from contextbase.embed.fake import FakeEmbedder
from contextbase.project.service import ProjectService

START = 1_750_000_000.0  # 2025-06-15T15:06:40Z


class FakeClock:
    """Seconds since the epoch, moved by hand."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(
        self, *, seconds: float = 0, minutes: float = 0, hours: float = 0, days: float = 0
    ) -> None:
        self.now += seconds + minutes * 60 + hours * 3600 + days * 86400


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


SHOP = {
    "pyproject.toml": '[project]\nname = "shop"\nrequires-python = ">=3.11"\n'
    'dependencies = ["fastapi>=0.110", "sqlalchemy>=2.0"]\n',
    "uv.lock": "version = 1\n",
    "src/shop/__init__.py": '"""The shop service."""\n',
    "src/shop/main.py": "from shop.routes import orders\n",
    "src/shop/routes/__init__.py": '"""HTTP routes."""\n',
    "src/shop/routes/orders.py": "from shop.services.orders import place_order\n",
    "src/shop/services/__init__.py": '"""Business logic."""\n',
    "src/shop/services/orders.py": "from ..models.order import Order\n\ndef place_order(): ...\n",
    "src/shop/models/__init__.py": '"""Database models."""\n',
    "src/shop/models/order.py": "class Order:\n    pass\n",
    "tests/test_orders.py": "def test_orders():\n    pass\n",
}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A small FastAPI project with routes, services and models layers."""
    return write_tree(tmp_path / "shop", SHOP)


@pytest.fixture
def make_service(clock: FakeClock) -> Callable[..., ProjectService]:
    services: list[ProjectService] = []

    def make(root: Path, **options: object) -> ProjectService:
        options.setdefault("embedder", FakeEmbedder())
        options.setdefault("clock", clock)
        service = ProjectService(root, **options)  # type: ignore[arg-type]
        services.append(service)
        return service

    yield make  # type: ignore[misc]
    for service in services:
        service.close()
