"""What every CLI command shares: the --db option, settings, JSON output."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click
from rich.console import Console

from contextbase.config import Settings, load_settings
from contextbase.store.db import Database

F = TypeVar("F", bound=Callable[..., Any])

console = Console()
err_console = Console(stderr=True)


def db_option(func: F) -> F:
    """``--db PATH``: the database file (default ~/.contextbase/contextbase.db)."""
    return click.option(
        "--db",
        "db_path",
        type=click.Path(dir_okay=False),
        default=None,
        help="Database file (default: $CONTEXTBASE_HOME/contextbase.db).",
    )(func)


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(func)


def settings_for(db_path: str | None, **overrides: Any) -> Settings:
    return load_settings(db=db_path, **overrides)


def open_database(settings: Settings) -> Database:
    return Database(settings.db)


def echo_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")
