"""``CredentialStore``: where API keys and other secrets live.

The OS keyring is used when a real backend works; otherwise secrets go to an encrypted file
(``filestore``). Callers see only references, ``Secret`` values and fingerprints.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from panelot_host.credentials.secret import Secret, fingerprint

log = logging.getLogger(__name__)

SERVICE = "panelot"


class SecretBackend(Protocol):
    def set(self, ref: str, value: str) -> None: ...
    def get(self, ref: str) -> str | None: ...
    def delete(self, ref: str) -> bool: ...


class KeyringSecretBackend:
    """Secrets in the OS keyring (Keychain, Credential Manager, Secret Service)."""

    def __init__(self, keyring_backend: Any, service: str = SERVICE) -> None:
        self._kr = keyring_backend
        self._service = service

    def set(self, ref: str, value: str) -> None:
        self._kr.set_password(self._service, ref, value)

    def get(self, ref: str) -> str | None:
        value = self._kr.get_password(self._service, ref)
        return value if isinstance(value, str) else None

    def delete(self, ref: str) -> bool:
        # lazy: keyring loads only when a keyring store is used (test_import_cost)
        import keyring.errors

        try:
            self._kr.delete_password(self._service, ref)
        except keyring.errors.PasswordDeleteError:
            return False
        return True


def usable_keyring() -> Any | None:
    """The default keyring backend if it can really store secrets, else None."""
    # lazy: keyring loads only when a store is built (test_import_cost)
    import keyring
    from keyring.backends import fail, null

    backend = keyring.get_keyring()
    if isinstance(backend, fail.Keyring | null.Keyring) or backend.priority <= 0:
        return None
    return backend


def default_key_dir() -> Path:
    """The key's home: the user's config dir under a name distinct from the data dir."""
    # lazy: platformdirs stays off the host's start
    import platformdirs

    return platformdirs.user_config_path("panelot-keys", appauthor=False)


class CredentialStore:
    """Secrets by reference.

    ``data_dir`` is ``PANELOT_HOME`` (the encrypted file's home); ``key_dir`` holds the file
    key (default: ``default_key_dir()``); ``keyring_backend`` is a ``keyring`` backend object,
    ``"auto"`` (the OS keyring when one works) or ``None`` (always the encrypted file).
    ``on_reveal`` is told every secret value read or stored (the log's ``SecretMask``).
    Raises ``InvalidState`` if ``key_dir`` is inside ``data_dir``.
    """

    def __init__(
        self,
        data_dir: Path,
        *,
        key_dir: Path | None = None,
        keyring_backend: Any = "auto",
        on_reveal: Callable[[str], None] | None = None,
    ) -> None:
        self._on_reveal = on_reveal or (lambda value: None)
        kr = usable_keyring() if keyring_backend == "auto" else keyring_backend
        self._backend: SecretBackend
        if kr is not None:
            self._backend = KeyringSecretBackend(kr)
        else:
            # lazy: the encrypted file brings cryptography, loaded only when it is the store
            from panelot_host.credentials.filestore import EncryptedFileBackend

            self._backend = EncryptedFileBackend(data_dir, key_dir or default_key_dir())
        self.kind = "keyring" if kr is not None else "file"

    def set(self, ref: str, secret: str | Secret) -> str:
        """Store ``secret`` under ``ref``; returns its fingerprint (``sha256:`` + 12 hex)."""
        value = secret.reveal() if isinstance(secret, Secret) else secret
        _check_ref(ref)
        if not value:
            raise ValueError("an empty secret cannot be stored")
        self._on_reveal(value)
        self._backend.set(ref, value)
        stored = fingerprint(value)
        log.info("credential %r stored (%s, %s)", ref, self.kind, stored)
        return stored

    def get(self, ref: str) -> Secret | None:
        """The secret stored under ``ref``, or None."""
        value = self._backend.get(ref)
        if not value:
            return None
        self._on_reveal(value)
        return Secret(value)

    def delete(self, ref: str) -> bool:
        """Forget ``ref``; returns whether something was deleted."""
        deleted = self._backend.delete(ref)
        if deleted:
            log.info("credential %r deleted", ref)
        return deleted


def _check_ref(ref: str) -> None:
    if not ref or len(ref) > 200 or not ref.isprintable():
        raise ValueError("a credential reference is 1-200 printable characters")
