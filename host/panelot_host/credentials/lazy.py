"""``LazyCredentials``: the credential store, built on first use.

keyring and cryptography are slow to import and a host must answer ``initialize`` fast, so
the host hands this to the parts that read secrets (the engine's models, its credential
vault, the MCP servers) instead of a ``CredentialStore``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from panelot_host.credentials.secret import Secret
from panelot_host.credentials.store import CredentialStore

if TYPE_CHECKING:
    from panelot_host.secret_mask import SecretMask


class LazyCredentials:
    """The credential store of ``home``, built on first use; ``mask`` learns every secret
    it reveals."""

    def __init__(self, home: Path, key_dir: Path | None, mask: SecretMask | None) -> None:
        self._home = home
        self._key_dir = key_dir
        self._mask = mask
        self._store: CredentialStore | None = None

    def store(self) -> CredentialStore:
        if self._store is None:
            on_reveal = self._mask.add if self._mask is not None else None
            self._store = CredentialStore(self._home, key_dir=self._key_dir, on_reveal=on_reveal)
        return self._store

    def get(self, ref: str) -> Secret | None:
        return self.store().get(ref)
