"""``doctor``'s data checks: database integrity, folder modes, credentials, and the
provider's reachability through a real local HTTP server (the key never printed)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from tests.support.web import serve_on_loopback

from panelot_host.cli.doctor_data import (
    check_credentials,
    check_databases,
    check_permissions,
    check_provider,
)
from panelot_host.credentials.secret import fingerprint
from panelot_host.credentials.store import CredentialStore
from panelot_host.store.db import Database
from panelot_host.store.settings import put_credential, put_settings

KEY = "sk-ant-doctor-test-0123456789"


def test_a_healthy_database_passes_and_a_damaged_one_is_named(tmp_path: Path) -> None:
    good = tmp_path / "profiles" / "a" / "panelot.db"
    Database.open(good).close()
    [finding] = check_databases(tmp_path)
    assert finding.status == "ok" and "integrity ok" in finding.message
    bad = tmp_path / "profiles" / "b" / "panelot.db"
    bad.parent.mkdir()
    with sqlite3.connect(bad) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.executemany("INSERT INTO t VALUES (?)", [("x" * 500,)] * 200)
    content = bytearray(bad.read_bytes())
    content[4096 : 4096 + 64] = b"\xff" * 64  # a damaged b-tree page
    bad.write_bytes(bytes(content))
    findings = check_databases(tmp_path)
    problem = next(f for f in findings if f.status == "problem")
    assert str(bad) in problem.message and ".recover" in problem.fix


def test_a_file_that_is_not_a_database_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "profiles" / "c" / "panelot.db"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not sqlite" * 100)
    [finding] = check_databases(tmp_path)
    assert finding.status == "problem"


def test_loose_modes_are_found_with_the_chmod_fix(tmp_path: Path) -> None:
    home = tmp_path / "data"
    (home / "logs").mkdir(parents=True, mode=0o700)
    home.chmod(0o700)
    (home / "logs" / "host.log").write_text("x")
    (home / "logs" / "host.log").chmod(0o600)
    assert [f.status for f in check_permissions(home)] == ["ok"]
    (home / "logs" / "host.log").chmod(0o644)
    (home / "logs").chmod(0o755)
    [finding] = check_permissions(home)
    assert finding.status == "problem" and "2 item(s) readable by others" in finding.message
    assert finding.fix == f"chmod -R go-rwx {home}"


def test_the_credential_store_answers(tmp_path: Path) -> None:
    findings, store = check_credentials(tmp_path / "data")
    assert [f.status for f in findings] == ["ok"] and store is not None


@contextmanager
def models_server() -> Iterator[tuple[str, list[tuple[str, dict[str, str]]]]]:
    """A provider's model list that accepts only ``KEY``; yields its URL and the requests."""
    seen: list[tuple[str, dict[str, str]]] = []

    class Models(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            seen.append((self.path, dict(self.headers)))
            good = self.headers.get("x-api-key") == KEY or self.headers.get("authorization") == (
                f"Bearer {KEY}"
            )
            self.send_response(200 if good else 401)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"data": []}')

    with serve_on_loopback(Models) as url:
        yield url, seen


def test_a_reachable_provider_with_a_good_key_shows_its_fingerprint_only(tmp_path: Path) -> None:
    with models_server() as (url, seen):
        env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": url}
        [finding] = check_provider(env, tmp_path, None)
    assert finding.status == "ok" and "reachable, key accepted" in finding.message
    assert KEY not in finding.message and "sha256:" in finding.message
    assert seen[0][0] == "/v1/models"


def test_a_refused_key_is_a_problem_without_the_key(tmp_path: Path) -> None:
    with models_server() as (url, _):
        env = {"OPENAI_API_KEY": "sk-wrong-key-42", "OPENAI_BASE_URL": url + "/v1"}
        env["PANELOT_MODEL"] = "llama3.1"
        [finding] = check_provider(env, tmp_path, None)
    assert finding.status == "problem" and "refused (HTTP 401)" in finding.message
    assert "sk-wrong-key-42" not in finding.message + finding.fix


def test_an_unreachable_server_is_a_problem(tmp_path: Path) -> None:
    with models_server() as (url, _):
        pass  # closed: nothing listens there any more
    env = {"OPENAI_BASE_URL": url + "/v1", "PANELOT_MODEL": "llama3.1"}
    [finding] = check_provider(env, tmp_path, None)
    assert finding.status == "problem" and "unreachable" in finding.message


def test_a_key_kept_in_the_credential_store_by_a_profile_is_used(tmp_path: Path) -> None:
    store = CredentialStore(tmp_path, key_dir=tmp_path.parent / "keys", keyring_backend=None)
    store.set("anthropic-main", KEY)
    with models_server() as (url, seen):
        database = Database.open(tmp_path / "profiles" / "p" / "panelot.db")
        settings = {"provider": "anthropic", "apiKeyRef": "anthropic-main", "baseUrl": url}
        with database.transaction() as conn:
            put_settings(conn, settings)
        database.close()
        findings = check_provider({}, tmp_path, store)
    assert [f.status for f in findings] == ["ok"], findings
    assert seen[0][1].get("x-api-key") == KEY
    assert KEY not in findings[0].message


def test_nothing_configured_is_a_note_not_a_problem(tmp_path: Path) -> None:
    [finding] = check_provider({}, tmp_path, None)
    assert finding.status == "note" and "side panel" in finding.fix


def _profile(home: Path, settings: dict[str, str], key_origin: str | None = None) -> None:
    """A profile whose settings are ``settings``; with ``key_origin``, the credential
    ``anthropic-main`` recorded as entered for it (as ``credentials.set`` records it)."""
    database = Database.open(home / "profiles" / "p" / "panelot.db")
    with database.transaction() as conn:
        put_settings(conn, settings)
        if key_origin is not None:
            put_credential(
                conn,
                ref="anthropic-main",
                provider=key_origin,
                backend="file",
                fingerprint=fingerprint(KEY),
            )
    database.close()


def _carries_the_key(seen: list[tuple[str, dict[str, str]]]) -> bool:
    return any(KEY in value for _, headers in seen for value in headers.values())


def test_a_stored_key_is_not_sent_to_a_base_url_moved_off_its_origin(tmp_path: Path) -> None:
    """Issue 25, finding 2: doctor resolves the key as a turn does, bound to its origin."""
    store = CredentialStore(tmp_path, key_dir=tmp_path.parent / "keys", keyring_backend=None)
    store.set("anthropic-main", KEY)
    with models_server() as (entered_for, seen_a), models_server() as (moved_to, seen_b):
        settings = {"provider": "anthropic", "apiKeyRef": "anthropic-main"}
        _profile(tmp_path, {**settings, "baseUrl": entered_for}, key_origin=entered_for)
        [at_its_origin] = check_provider({}, tmp_path, store)
        _profile(tmp_path, {**settings, "baseUrl": moved_to})  # the key still for A
        [moved] = check_provider({}, tmp_path, store)
    assert at_its_origin.status == "ok" and _carries_the_key(seen_a)  # the control
    assert not _carries_the_key(seen_b)
    assert moved.status == "problem"
    assert f"entered for {entered_for}" in moved.message
    assert f"the base URL now points at {moved_to}" in moved.message
    assert "the key was not sent" in moved.message
    assert "credentials set anthropic-main" in moved.fix and "baseUrl" in moved.fix
    assert KEY not in moved.message + moved.fix


def test_the_environment_key_is_not_sent_to_a_profiles_other_base_url(tmp_path: Path) -> None:
    with models_server() as (home_url, seen_a), models_server() as (moved_to, seen_b):
        env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": home_url}
        _profile(tmp_path, {"provider": "anthropic", "baseUrl": moved_to})
        findings = check_provider(env, tmp_path, None)
    assert [f.status for f in findings] == ["ok", "problem"], findings
    assert _carries_the_key(seen_a) and not _carries_the_key(seen_b)
    assert "ANTHROPIC_API_KEY is meant for" in findings[1].message
