"""Credentials: ``Secret`` values and the ``CredentialStore`` (OS keyring or encrypted file).

Nothing here imports ``keyring`` or ``cryptography`` until a store is built.
"""

from panelot_host.credentials.secret import Secret, fingerprint
from panelot_host.credentials.store import CredentialStore

__all__ = ["CredentialStore", "Secret", "fingerprint"]
