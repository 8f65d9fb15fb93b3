"""``Secret``: a credential value that never shows itself by accident.

``str``/``repr``/``format`` are redacted, it refuses to be pickled, and msgspec cannot encode
it (it is not a Struct), so a secret cannot slip into the database, an event or a log line
without an explicit ``reveal()``.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import NoReturn

_REDACTED = "Secret('**********')"


def fingerprint(value: str) -> str:
    """A short, non-reversible identifier of a secret: ``sha256:`` + 12 hex digits."""
    return "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()[:12]


class Secret:
    """Holds a secret string; read it only with ``reveal()`` right where it is sent."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError("Secret wraps a str")
        self._value = value

    def reveal(self) -> str:
        """The secret itself: pass it straight to the HTTP header, never to a log."""
        return self._value

    @property
    def fingerprint(self) -> str:
        return fingerprint(self._value)

    def __repr__(self) -> str:
        return _REDACTED

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return _REDACTED

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Secret):
            return NotImplemented
        return hmac.compare_digest(self._value.encode(), other._value.encode())

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    def __bool__(self) -> bool:
        return bool(self._value)

    def __reduce__(self) -> NoReturn:
        raise TypeError("a Secret cannot be pickled")

    def __copy__(self) -> Secret:
        return self

    def __deepcopy__(self, memo: object) -> Secret:
        return self
