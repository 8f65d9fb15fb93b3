"""Masking secrets out of text bound for logs and stderr.

``SecretMask`` learns every secret the host reads or stores (the credential store calls
``add``; so does the CLI for API keys from the environment) and ``mask`` replaces each,
whatever its shape, plus anything shaped like an API key. The log formatter applies it to
every record, traceback included, so a secret echoed by an MCP server on stderr, in a
non-JSON stdout line or inside a validation error (pydantic's ``input_value=``) never
reaches ``logs/host.log`` or the host's stderr. ``mask_known`` replaces only the known
secrets: MCP servers' output passes through it (``tools.mcp.masking``), where a key
*shape* may be legitimate text (``key-value-store``).
"""

from __future__ import annotations

import re
from typing import Final

KEY_SHAPED: Final = re.compile(r"\b(sk|pk|rk|key|sess)-[A-Za-z0-9_*\-.]{6,}")
"""Text shaped like an API key (``sk-...``, ``sk-ant-...``, ``key-...``)."""
REDACTED: Final = "[redacted]"
MIN_SECRET_LENGTH: Final = 4
"""Shorter values are not masked: they would blot out ordinary words of the log."""


class SecretMask:
    """The secrets known so far and ``mask`` over them. Not shared between processes."""

    def __init__(self) -> None:
        self._secrets: set[str] = set()
        self._pattern: re.Pattern[str] | None = None

    def add(self, value: str) -> None:
        """Mask ``value`` from now on (values under ``MIN_SECRET_LENGTH`` are ignored)."""
        if len(value) >= MIN_SECRET_LENGTH and value not in self._secrets:
            self._secrets.add(value)
            longest_first = sorted(self._secrets, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(s) for s in longest_first))

    def mask(self, text: str) -> str:
        """``text`` with every known secret and anything key-shaped replaced."""
        return KEY_SHAPED.sub(REDACTED, self.mask_known(text))

    def mask_known(self, text: str) -> str:
        """``text`` with every known secret replaced (key shapes are left as they are)."""
        if self._pattern is None:
            return text
        return self._pattern.sub(REDACTED, text)
