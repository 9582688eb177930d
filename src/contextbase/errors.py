"""The one exception tree of contextbase.

::

    ContextbaseError
    ├── UserError                 the caller can fix it: bad input, bad configuration
    │   ├── ConfigError           a setting or configuration file is wrong (names the field)
    │   ├── InvalidInputError     an argument is malformed, out of range or hostile
    │   ├── NotFoundError         an id, library, file or record does not exist
    │   │   └── LibraryNotFoundError   carries close matches as suggestions
    │   └── MissingDependencyError     an optional extra is not installed (names the extra)
    └── RuntimeFailure            something outside the caller's control failed
        ├── StoreError            the database failed or is unusable
        │   └── SchemaVersionError     the database was written by a newer contextbase
        ├── EmbeddingError        an embedding provider failed (network, 5xx, bad reply)
        │   └── AuthenticationError    a provider rejected the API key
        └── SourceError           a source (folder, git, website) could not be read

The CLI turns any of these into one sentence and a non-zero exit; MCP tools turn
them into an error result. Messages are complete sentences meant for a person.
"""

from __future__ import annotations


class ContextbaseError(Exception):
    """Root of every error contextbase raises on purpose."""


class UserError(ContextbaseError):
    """A mistake the caller can fix."""


class ConfigError(UserError):
    """A setting or configuration file is wrong."""


class InvalidInputError(UserError):
    """An argument is malformed, out of range or hostile."""


class NotFoundError(UserError):
    """Something named by the caller does not exist."""


class LibraryNotFoundError(NotFoundError):
    """No indexed library matches; ``suggestions`` holds the closest ids."""

    def __init__(self, message: str, suggestions: list[str] | None = None) -> None:
        super().__init__(message)
        self.suggestions = suggestions or []


class MissingDependencyError(UserError):
    """An optional dependency is missing; the message names the extra to install."""


class RuntimeFailure(ContextbaseError):
    """Something outside the caller's control failed."""


class StoreError(RuntimeFailure):
    """The database failed or is unusable."""


class SchemaVersionError(StoreError):
    """The database was written by a newer version of contextbase."""


class EmbeddingError(RuntimeFailure):
    """An embedding provider failed."""


class AuthenticationError(EmbeddingError):
    """A provider rejected the API key."""


class SourceError(RuntimeFailure):
    """A documentation source could not be read."""
