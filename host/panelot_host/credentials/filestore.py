"""Secrets encrypted at rest in a file, with the key kept in another directory.

The data file (``credentials.json`` under ``PANELOT_HOME``) maps a reference to an AES-GCM
token (nonce + ciphertext, base64) whose associated data is the reference, so entries cannot
be swapped between references. The 256-bit key lives in a separate directory (by default the
user's config dir, never inside ``PANELOT_HOME``), so a backup or sync of ``PANELOT_HOME``
carries no usable secret. Both files are 0600; the key is created atomically (written to a
temporary file, then hard-linked into place, which fails if another process won the race).
"""

from __future__ import annotations

import base64
import json
import logging
import os
import secrets
import tempfile
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from panelot_host.errors import InvalidState

log = logging.getLogger(__name__)

KEY_FILE = "credentials.key"
DATA_FILE = "credentials.json"
_NONCE = 12


class EncryptedFileBackend:
    """Stores secrets in ``data_dir/credentials.json``, encrypted with ``key_dir/credentials.key``.

    Raises ``InvalidState`` when ``key_dir`` is ``data_dir`` or lies inside it.
    """

    def __init__(self, data_dir: Path, key_dir: Path) -> None:
        data_dir, key_dir = data_dir.resolve(), key_dir.resolve()
        if key_dir == data_dir or key_dir.is_relative_to(data_dir):
            raise InvalidState(
                f"the credential key folder {key_dir} is inside the data folder {data_dir}: "
                "the key must live elsewhere, or a copy of the data folder would carry both "
                "the encrypted secrets and their key; choose a key folder outside it"
            )
        self._data_path = data_dir / DATA_FILE
        self._key_path = key_dir / KEY_FILE

    def set(self, ref: str, value: str) -> None:
        entries = self._read()
        nonce = secrets.token_bytes(_NONCE)
        sealed = AESGCM(self._key_or_create()).encrypt(nonce, value.encode(), ref.encode())
        entries[ref] = base64.b64encode(nonce + sealed).decode("ascii")
        self._write(entries)

    def get(self, ref: str) -> str | None:
        token = self._read().get(ref)
        key = self._existing_key() if token is not None else None
        if token is None or key is None:
            return None
        raw = base64.b64decode(token)
        try:
            return AESGCM(key).decrypt(raw[:_NONCE], raw[_NONCE:], ref.encode()).decode()
        except InvalidTag:
            log.warning("credential %r cannot be decrypted (key changed?); set it again", ref)
            return None

    def delete(self, ref: str) -> bool:
        entries = self._read()
        if entries.pop(ref, None) is None:
            return False
        self._write(entries)
        return True

    # ------------------------------------------------------------ files

    def _existing_key(self) -> bytes | None:
        try:
            return self._key_path.read_bytes()
        except FileNotFoundError:
            return None

    def _key_or_create(self) -> bytes:
        key = self._existing_key()
        if key is None:
            _create_exclusive(self._key_path, AESGCM.generate_key(bit_length=256))
            key = self._key_path.read_bytes()
        return key

    def _read(self) -> dict[str, str]:
        try:
            loaded = json.loads(self._data_path.read_text("utf-8"))
        except FileNotFoundError:
            return {}
        if not isinstance(loaded, dict):
            raise ValueError(f"{self._data_path} is not a credentials file")
        return {str(k): str(v) for k, v in loaded.items()}

    def _write(self, entries: dict[str, str]) -> None:
        data = json.dumps(entries, sort_keys=True).encode()
        tmp = _write_private_temp(self._data_path.parent, data)
        os.replace(tmp, self._data_path)


def _write_private_temp(directory: Path, data: bytes) -> Path:
    """Write ``data`` to a new 0600 file in ``directory`` (created 0700) and fsync it."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=directory, prefix=".tmp-")  # mkstemp creates 0600
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    return Path(name)


def _create_exclusive(path: Path, data: bytes) -> None:
    """Create ``path`` with ``data`` atomically, unless another process created it first."""
    tmp = _write_private_temp(path.parent, data)
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass  # another process won the race; its key is the key
    finally:
        tmp.unlink()
