"""CredentialStore: OS keyring when one works, else an encrypted file with the key apart."""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
from pathlib import Path

import msgspec
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

from panelot_host.credentials import CredentialStore, Secret, fingerprint
from panelot_host.credentials.filestore import DATA_FILE, KEY_FILE, _create_exclusive
from panelot_host.credentials.store import usable_keyring
from panelot_host.errors import InvalidState

SECRET = "sk-ant-api03-CREDTEST-0a1b2c3d4e5f"


class MemoryKeyring(KeyringBackend):
    """A real keyring backend kept in memory (what an OS keyring does, minus the OS)."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.items.pop((service, username), None) is None:
            raise PasswordDeleteError(username)


def _file_store(tmp_path: Path) -> CredentialStore:
    return CredentialStore(tmp_path / "home", key_dir=tmp_path / "keys", keyring_backend=None)


def test_set_returns_a_short_irreversible_fingerprint(tmp_path: Path) -> None:
    store = _file_store(tmp_path)
    fp = store.set("anthropic", SECRET)
    assert fp == "sha256:" + hashlib.sha256(SECRET.encode()).hexdigest()[:12]
    assert fp == fingerprint(SECRET) and SECRET not in fp
    assert store.get("anthropic") == Secret(SECRET)
    assert store.get("missing") is None


def test_file_backend_encrypts_and_keeps_the_key_in_another_directory(tmp_path: Path) -> None:
    store = _file_store(tmp_path)
    assert store.kind == "file"
    store.set("openai", SECRET)
    data, key = tmp_path / "home" / DATA_FILE, tmp_path / "keys" / KEY_FILE
    assert SECRET.encode() not in data.read_bytes()
    assert b"CREDTEST" not in data.read_bytes()
    for path in (data, key):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not list((tmp_path / "home").glob(".tmp-*"))
    assert not list((tmp_path / "keys").glob(".tmp-*"))


def test_secrets_survive_a_new_store_and_the_key_is_reused(tmp_path: Path) -> None:
    _file_store(tmp_path).set("a", SECRET)
    key = (tmp_path / "keys" / KEY_FILE).read_bytes()
    again = _file_store(tmp_path)
    again.set("b", "second")
    assert (tmp_path / "keys" / KEY_FILE).read_bytes() == key
    assert again.get("a") == Secret(SECRET) and again.get("b") == Secret("second")


def test_a_process_that_loses_the_key_race_uses_the_winners_key(tmp_path: Path) -> None:
    key = tmp_path / "keys" / KEY_FILE
    key.parent.mkdir(mode=0o700)
    key.write_bytes(b"w" * 32)  # the winner linked its key in first
    _create_exclusive(key, b"l" * 32)
    assert key.read_bytes() == b"w" * 32
    assert not list(key.parent.glob(".tmp-*"))  # the loser's temp file is gone


def test_without_the_key_a_copied_data_dir_reveals_nothing(tmp_path: Path) -> None:
    _file_store(tmp_path).set("a", SECRET)
    other = CredentialStore(tmp_path / "home", key_dir=tmp_path / "other", keyring_backend=None)
    assert other.get("a") is None  # a backup of PANELOT_HOME alone is useless


def test_entries_cannot_be_swapped_between_refs(tmp_path: Path) -> None:
    store = _file_store(tmp_path)
    store.set("a", "alpha")
    store.set("b", "beta")
    data = tmp_path / "home" / DATA_FILE
    entries = msgspec.json.decode(data.read_bytes())
    entries["a"], entries["b"] = entries["b"], entries["a"]
    data.write_bytes(msgspec.json.encode(entries))
    assert store.get("a") is None and store.get("b") is None


def test_delete_forgets_and_reports_whether_something_was_deleted(tmp_path: Path) -> None:
    store = _file_store(tmp_path)
    store.set("a", SECRET)
    assert store.delete("a") is True and store.get("a") is None
    assert store.delete("a") is False


def test_key_inside_the_data_dir_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidState, match="is inside the data folder"):
        CredentialStore(tmp_path, key_dir=tmp_path / "keys", keyring_backend=None)


def test_refs_and_secrets_are_validated(tmp_path: Path) -> None:
    store = _file_store(tmp_path)
    with pytest.raises(ValueError):
        store.set("", SECRET)
    with pytest.raises(ValueError):
        store.set("a", "")
    for bad in ("r" * 201, "line\nbreak", "tab\t"):
        with pytest.raises(ValueError, match="1-200 printable characters"):
            store.set(bad, SECRET)
    with pytest.raises(ValueError, match="empty secret"):
        store.set("a", Secret(""))
    assert store.set("r" * 200, SECRET) == fingerprint(SECRET)
    assert store.get("r" * 200) == Secret(SECRET)


def test_a_working_keyring_is_used_and_nothing_is_written_to_disk(tmp_path: Path) -> None:
    keyring = MemoryKeyring()
    store = CredentialStore(tmp_path / "home", key_dir=tmp_path / "keys", keyring_backend=keyring)
    assert store.kind == "keyring"
    store.set("anthropic", Secret(SECRET))
    assert keyring.items[("panelot", "anthropic")] == SECRET
    assert store.get("anthropic") == Secret(SECRET)
    assert store.delete("anthropic") and not store.delete("anthropic")
    assert not (tmp_path / "home").exists() and not (tmp_path / "keys").exists()


def test_the_fail_backend_on_this_machine_means_the_file_store(tmp_path: Path) -> None:
    import keyring
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        assert usable_keyring() is None
        store = CredentialStore(tmp_path / "home", key_dir=tmp_path / "keys")
        assert store.kind == "file"
    finally:
        keyring.set_keyring(previous)


def test_secret_is_redacted_everywhere_but_reveal() -> None:
    secret = Secret(SECRET)
    shown = [repr(secret), str(secret), f"{secret}", f"{secret!r}", "%s" % (secret,)]  # noqa: UP031 - as logging formats
    assert all("CREDTEST" not in text for text in shown)
    assert secret.reveal() == SECRET and secret.fingerprint == fingerprint(SECRET)
    with pytest.raises(TypeError):
        pickle.dumps(secret)
    with pytest.raises(TypeError):
        msgspec.json.encode({"key": secret})


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_key_directory_is_private(tmp_path: Path) -> None:
    _file_store(tmp_path).set("a", SECRET)
    assert stat.S_IMODE((tmp_path / "keys").stat().st_mode) == 0o700
