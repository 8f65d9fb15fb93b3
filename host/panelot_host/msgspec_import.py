"""Importing msgspec as a host process starts: without typing_extensions.

msgspec reads annotations with ``typing_extensions.get_type_hints`` when that package is
installed (anyio and pydantic install it) and with ``typing.get_type_hints`` otherwise,
which is msgspec's own default: it does not depend on typing_extensions. Importing
typing_extensions, and the ``inspect`` module it loads, costs ~6 ms of a ~70 ms start
(spawn -> the first answers), so the serve path imports msgspec as if it were absent.
Nothing in this package annotates with typing_extensions, and the protocol's schema
generated this way is the committed one (``tests/protocol/test_msgspec_import.py``).
Later imports of typing_extensions (anyio's, pydantic's) are not affected.
"""

from __future__ import annotations

import sys

_HIDDEN = "typing_extensions"


def import_msgspec_without_typing_extensions() -> None:
    """Import msgspec now, hiding typing_extensions from it; a no-op once msgspec or
    typing_extensions is imported."""
    if "msgspec" in sys.modules or _HIDDEN in sys.modules:
        return
    sys.modules[_HIDDEN] = None  # type: ignore[assignment]  # makes its import fail
    try:
        import msgspec  # noqa: F401
    finally:
        del sys.modules[_HIDDEN]
