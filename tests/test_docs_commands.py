"""The docs run as written: every fenced block marked ```` ```sh runnable ```` in README.md
and docs/ is run with bash, exactly as printed, from a copy of the repository's layout
(its ``.venv`` included) with a fresh home directory; and the facts the docs state about
the running host (default ``PANELOT_HOME``, ``initialize`` with another version, ``serve``
at a terminal, a self-contained protocol reference) hold."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import msgspec
import pytest
from tests.cli.terminal import Pane, needs_tmux
from tests.support.wire_client import HostProcess, initialize_params

import panelot_host
from panelot_host.home import panelot_home

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=indent)```\s*$",
    re.DOTALL | re.MULTILINE,
)
DUMMY_KEY = "sk-docs-example-not-a-real-key"  # what "$OPENAI_API_KEY" holds in the blocks
PROVIDER_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "PANELOT_MODEL")


class Block(msgspec.Struct, frozen=True):
    path: Path
    line: int
    body: str

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def runnable_blocks() -> list[Block]:
    blocks = []
    for path in DOCS:
        text = path.read_text("utf-8")
        for match in FENCE.finditer(text):
            if match.group("info").split()[1:2] == ["runnable"]:
                line = text.count("\n", 0, match.start()) + 1
                blocks.append(Block(path, line, textwrap.dedent(match.group("body"))))
    return blocks


BLOCKS = runnable_blocks()


def fresh_checkout(target: Path) -> Path:
    """The repository's top level, linked (its ``.venv`` too), so files a command writes
    land in ``target`` and not in the repository."""
    target.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in (".git",):
            (target / entry.name).symlink_to(entry)
    return target


def fresh_env(home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PANELOT_", "XDG_")) and k not in PROVIDER_VARS
    }
    home.mkdir()
    env.update(
        HOME=str(home),
        OPENAI_API_KEY=DUMMY_KEY,
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",  # no OS keyring here
    )
    return env


def test_the_docs_mark_their_runnable_commands() -> None:
    names = {b.path.name for b in BLOCKS}
    assert {"README.md", "chat.md"} <= names, names


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.name)
def test_a_runnable_block_runs_as_printed(block: Block, tmp_path: Path) -> None:
    checkout = fresh_checkout(tmp_path / "panelot")
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block.body],
        cwd=checkout,
        env=fresh_env(tmp_path / "user"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"{block.name}:\n{block.body}\n{done.stdout}\n{done.stderr}"
    assert "Traceback" not in done.stderr
    assert DUMMY_KEY not in done.stdout + done.stderr


def test_every_command_in_the_docs_runs_from_the_venv_or_says_to_activate_it() -> None:
    """A fresh clone has no ``panelot-host`` or ``python`` with the package on PATH: a
    command line starts with ``.venv/bin/``, ``bash scripts/``, ``bash install/``,
    ``sh tests/``, ``cat`` or a variable assignment before one of those. A block marked
    ```` ```sh user ```` is the installed product's (the wheel's route): it starts with
    ``pipx``, ``uv tool`` or ``panelot-host``, which that install puts on PATH."""
    clone = (".venv/bin/", "bash scripts/", "bash install/", "sh tests/", "cat ", "printf ")
    installed = ("pipx ", "uv tool ", "panelot-host ")
    for path in DOCS:
        for match in FENCE.finditer(path.read_text("utf-8")):
            info = match.group("info").split()
            if info[:1] not in (["sh"], ["bash"]):
                continue
            starts = installed if "user" in info else clone
            body = textwrap.dedent(match.group("body")).replace("\\\n", " ")
            for line in body.splitlines():  # continuation lines joined
                command = re.sub(r"^(\w+=\S+\s+)+", "", line.strip())
                if command and not command.startswith("#"):
                    assert command.startswith(starts), f"{path.name}: {line}"


def test_the_protocol_reference_is_self_contained() -> None:
    reference = (ROOT / "docs" / "protocol.md").read_text("utf-8")
    for link in re.findall(r"\]\(([^)#]+)", reference):
        assert (ROOT / "docs" / link).resolve().exists(), link
    assert "design/" not in reference


@pytest.mark.skipif(sys.platform != "linux", reason="checks the Linux default itself")
def test_the_default_panelot_home_is_the_one_the_docs_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    assert "| Linux | `$XDG_DATA_HOME/panelot` when `XDG_DATA_HOME` is set, else" in readme
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert panelot_home({}) == tmp_path / ".local" / "share" / "panelot"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert panelot_home({}) == tmp_path / "data" / "panelot"
    monkeypatch.delenv("XDG_DATA_HOME")
    from platformdirs import windows
    from platformdirs.macos import MacOS

    assert "| macOS | `~/Library/Application Support/panelot` |" in readme
    mac = MacOS("panelot", appauthor=False).user_data_dir
    assert mac == os.path.expanduser("~/Library/Application Support/panelot")
    assert "| Windows | `%LOCALAPPDATA%\\panelot`" in readme
    local = r"C:\Users\me\AppData\Local"
    original = windows.get_win_folder
    windows.get_win_folder = lambda csidl: local if csidl == "CSIDL_LOCAL_APPDATA" else "?"
    try:
        win = windows.Windows("panelot", appauthor=False).user_data_dir
    finally:
        windows.get_win_folder = original
    assert win.replace("/", "\\") == local + "\\panelot"


def test_initialize_with_another_protocol_version_behaves_as_documented(tmp_path: Path) -> None:
    host = HostProcess(tmp_path / "home")
    try:
        refused = host.call("initialize", {**initialize_params(), "protocolVersion": 2})
        assert refused["error"]["code"] == -32602
        assert refused["error"]["data"]["errors"] == [
            {"path": "$.params.protocolVersion", "message": "this host speaks protocol version 1"}
        ]
        assert refused["error"]["message"].startswith("unsupported protocol version")
        data = refused["error"]["data"]
        assert data["protocolVersions"] == {"oldest": 1, "newest": 1}
        assert (data["update"], data["hostVersion"]) == ("host", panelot_host.__version__)
        assert data["hostUpdateCommand"].endswith("git pull && bash install/install.sh")
        before = host.call("thread.list", {})
        assert before["error"]["data"]["kind"] == "not_initialized"
        accepted = host.call("initialize", initialize_params())  # the client may try again
        assert accepted["result"]["protocolVersion"] == 1
        assert accepted["result"]["protocolVersions"] == {"oldest": 1, "newest": 1}
    finally:
        host.kill()


@needs_tmux
def test_serve_at_a_terminal_says_it_expects_native_messaging_frames(tmp_path: Path) -> None:
    command = shlex.join([sys.executable, "-m", "panelot_host", "serve"])
    home = shlex.quote(str(tmp_path / "home"))
    pane = Pane(f"env PANELOT_HOME={home} {command}; echo EXIT=$?; sleep 60", height=20)
    try:
        screen = pane.wait_for("native-messaging frames")
        assert "panelot-host chat" in screen
        pane.keys("C-d")
        screen = pane.wait_for("EXIT=")
        assert "EXIT=0" in screen and "Traceback" not in screen
    finally:
        pane.close()


def test_serve_on_pipes_writes_nothing_to_stderr_about_terminals(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "panelot_host", "serve"],
        env={**os.environ, "PANELOT_HOME": str(tmp_path / "home")},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=30,
    )
    assert done.returncode == 0
    assert done.stdout == b"" and b"native-messaging" not in done.stderr
