"""Turning contextbase errors into MCP tool errors."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver.exceptions import ToolError

from contextbase.errors import ContextbaseError

F = TypeVar("F", bound=Callable[..., Any])
log = logging.getLogger("contextbase.server")


def tool_errors(func: F) -> F:
    """Report a ContextbaseError as a tool error with its one-sentence message.

    Anything else is logged with its traceback and reported as an internal
    error, so the server keeps serving either way.
    """

    def translate(exc: Exception) -> ToolError:
        if isinstance(exc, ContextbaseError):
            return ToolError(str(exc))
        log.exception("tool %s failed", func.__name__)
        return ToolError(f"Internal error in {func.__name__}: {type(exc).__name__}: {exc}")

    if inspect.iscoroutinefunction(func):

        @functools.wraps(func)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return await func(*args, **kwargs)
            except ToolError:
                raise
            except Exception as exc:
                raise translate(exc) from exc

        return async_wrapper  # type: ignore[return-value]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except ToolError:
            raise
        except Exception as exc:
            raise translate(exc) from exc

    return wrapper  # type: ignore[return-value]
