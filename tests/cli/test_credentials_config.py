"""``panelot-host credentials`` and ``panelot-host config``: a key and the provider settings
stored without a protocol client, then used by the chat against a fake model server."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

from tests.cli.fake_openai import HOST, SSEServer, host_env, text_reply
from tests.cli.terminal import Pane, needs_tmux

from panelot_host.credentials.secret import fingerprint

SECRET = "sk-local-0123456789abcdef"


def cli_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The child's environment: its own PANELOT_HOME and key directory, no OS keyring
    (the encrypted file backend), and no provider variables."""
    return host_env(
        tmp_path / "home",
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        **extra,
    )


def host(
    env: dict[str, str], *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*HOST, *args],
        env=env,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_key_and_settings_stored_from_the_shell_drive_the_chat(
    tmp_path: Path, model_server: SSEServer
) -> None:
    env = cli_env(tmp_path)
    stored = host(env, "credentials", "set", "local-llm", stdin=SECRET + "\n")
    assert stored.returncode == 0, stored.stderr
    assert stored.stdout == f"local-llm\t{fingerprint(SECRET)}\n"  # the newline is not kept

    for key, value in [
        ("provider", "openai"),
        ("baseUrl", model_server.url + "/v1"),
        ("model", "local-model"),
        ("apiKeyRef", "local-llm"),
        ("defaultTokenBudget", "20000"),
    ]:
        done = host(env, "config", "set", key, value)
        assert done.returncode == 0, done.stderr
        assert done.stdout == f"{key} = {value}\n"
    assert host(env, "config", "get", "defaultTokenBudget").stdout == "20000\n"

    listed = host(env, "credentials", "list")
    assert listed.returncode == 0, listed.stderr
    ref, shown, backend, updated = listed.stdout.strip().split("\t")
    assert (ref, shown, backend) == ("local-llm", fingerprint(SECRET), "encrypted_file")
    assert len(updated) == len("2025-01-31T12:34:56.789Z") and updated.endswith("Z")

    model_server.add(text_reply("Hello from the local model."))
    chat = host(env, "chat", "hi")  # no key in the environment: the stored one is used
    assert chat.returncode == 0, chat.stderr
    assert chat.stdout == "Hello from the local model.\n"
    headers = {k.lower(): v for k, v in model_server.requests[0].headers.items()}
    assert headers["authorization"] == f"Bearer {SECRET}"

    for path in (tmp_path / "home").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path

    deleted = host(env, "credentials", "delete", "local-llm")
    assert deleted.returncode == 0 and fingerprint(SECRET) in deleted.stdout
    assert host(env, "credentials", "list").stdout == ""
    again = host(env, "credentials", "delete", "local-llm")
    assert again.returncode == 1 and "nothing is stored under local-llm" in again.stderr


def test_values_are_validated_as_the_protocol_does(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    bad_budget = host(env, "config", "set", "defaultTokenBudget", "lots")
    assert bad_budget.returncode == 1
    assert "$.params.defaultTokenBudget" in bad_budget.stderr
    bad_url = host(env, "config", "set", "baseUrl", "ftp://example.com")
    assert bad_url.returncode == 1 and "$.params.baseUrl" in bad_url.stderr
    bad_ref = host(env, "credentials", "set", "no spaces please", stdin="x")
    assert bad_ref.returncode == 1 and "$.params.ref" in bad_ref.stderr
    unknown = host(env, "config", "set", "colour", "blue")
    assert unknown.returncode == 1 and "unknown key colour" in unknown.stderr
    extra = host(env, "config", "get", "model", "gpt-4.1")  # get takes no VALUE
    assert extra.returncode == 1 and "takes no VALUE" in extra.stderr
    empty = host(env, "credentials", "set", "openai", stdin="")
    assert empty.returncode == 1 and "no secret" in empty.stderr
    assert "Traceback" not in bad_budget.stderr + bad_url.stderr + bad_ref.stderr


def test_the_secret_is_never_taken_from_the_command_line(tmp_path: Path) -> None:
    done = host(cli_env(tmp_path), "credentials", "set", "openai", SECRET)
    assert done.returncode == 2  # argparse: no such argument
    assert SECRET not in done.stdout


def test_profiles_keep_their_own_settings_and_keys(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    assert (
        host(env, "credentials", "set", "work-key", "--profile", "work", stdin="s3").returncode == 0
    )
    assert host(env, "config", "set", "model", "work-model", "--profile", "work").returncode == 0
    assert host(env, "credentials", "list", "--profile", "work").stdout.startswith("work-key\t")
    assert host(env, "credentials", "list").stdout == ""
    assert host(env, "config", "get", "model", "--profile", "work").stdout == "work-model\n"
    default = host(env, "config", "get", "model")
    assert "work-model" not in default.stdout
    cleared = host(env, "config", "unset", "model", "--profile", "work")
    assert cleared.returncode == 0 and "work-model" not in cleared.stdout


@needs_tmux
def test_at_a_terminal_the_secret_is_typed_at_a_hidden_prompt(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items() if k.isidentifier())
    command = " ".join(shlex.quote(a) for a in [*HOST, "credentials", "set", "openai"])
    pane = Pane(f"env -i {assignments} {command}; echo EXIT=$?; sleep 60", height=20)
    try:
        pane.wait_for("secret for openai (input hidden):")
        pane.keys(SECRET, "Enter")
        screen = pane.wait_for("EXIT=0")
        assert SECRET not in screen
        assert fingerprint(SECRET) in screen
    finally:
        pane.close()


def test_while_another_host_serves_the_profile_the_commands_say_so(tmp_path: Path) -> None:
    """The commands write under the profile's single-writer lease, as a client's host
    does: while Chrome's host holds it they wait (about 4 s) and then explain."""
    from panelot_host.store.lease import WriterLease
    from panelot_host.store.profiles import database_path

    env = cli_env(tmp_path)
    lease = WriterLease(database_path(tmp_path / "home", None), wait_s=0)
    lease.acquire()
    try:
        done = host(env, "config", "set", "model", "gpt-4.1")
    finally:
        lease.release()
    assert done.returncode == 1
    assert "another panelot-host process" in done.stderr and "Traceback" not in done.stderr
    assert host(env, "config", "set", "model", "gpt-4.1").returncode == 0  # once it is free


def test_a_missing_key_names_the_commands_that_store_one(tmp_path: Path) -> None:
    done = host(cli_env(tmp_path, PANELOT_PROVIDER="openai"), "chat", "hi")
    assert done.returncode == 2
    assert "panelot-host credentials set openai" in done.stderr
    assert "panelot-host config set apiKeyRef openai" in done.stderr


def test_the_timeline_settings_are_set_from_the_shell(tmp_path: Path) -> None:
    env = cli_env(tmp_path)
    assert host(env, "config", "get", "captureFrames").stdout == "true\n"
    assert host(env, "config", "get", "frameBudgetMb").stdout == "200\n"
    off = host(env, "config", "set", "captureFrames", "off")
    assert off.returncode == 0 and off.stdout == "captureFrames = false\n", off.stderr
    budget = host(env, "config", "set", "frameBudgetMb", "300")
    assert budget.returncode == 0 and budget.stdout == "frameBudgetMb = 300\n", budget.stderr
    small = host(env, "config", "set", "frameBudgetMb", "5")
    assert small.returncode == 1 and "$.params.frameBudgetMb" in small.stderr
    maybe = host(env, "config", "set", "captureFrames", "maybe")
    assert maybe.returncode == 1 and "$.params.captureFrames" in maybe.stderr
    assert host(env, "config", "unset", "captureFrames").stdout == "captureFrames = true\n"
