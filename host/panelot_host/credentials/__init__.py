"""Credentials: ``Secret`` values and the ``CredentialStore`` (OS keyring or encrypted file).

Nothing here imports ``keyring`` or ``cryptography`` until a store is built.

- ``secret``: ``Secret`` values that never show themselves, and fingerprints
- ``store``: ``CredentialStore`` (keyring or encrypted file) by reference
- ``filestore``: the encrypted file, its key kept in another directory
- ``lazy``: ``LazyCredentials``, the store built on first use (what the host hands out)
"""

from panelot_host.credentials.secret import Secret, fingerprint
from panelot_host.credentials.store import CredentialStore

__all__ = ["CredentialStore", "Secret", "fingerprint"]
