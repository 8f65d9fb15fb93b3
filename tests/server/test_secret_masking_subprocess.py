"""No secret reaches the log or the host's stderr (issue 11, item 3): an MCP server that
is given a stored credential and echoes it on stderr and as a non-JSON stdout line."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from tests.support.wire_client import HostProcess, initialize_params

from panelot_host.credentials.mask import SecretMask

pytestmark = pytest.mark.slow

SECRET = "correct horse battery staple 42"  # no key shape at all: masked as a stored secret
ECHO = (
    "import os, sys, time\n"
    "print('token on stderr:', os.environ['TOKEN'], file=sys.stderr, flush=True)\n"
    "print('not json ' + os.environ['TOKEN'], flush=True)\n"
    "print('{\"jsonrpc\": \"2.0\", \"id\": ' + repr(os.environ['TOKEN']) + '}', flush=True)\n"
    "time.sleep(3)\n"
)


def test_a_child_echoing_its_credential_is_masked_in_log_and_stderr(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
    }
    proc = HostProcess(home, "serve", "--verbose", env=env)
    try:
        proc.call("initialize", initialize_params())
        stored = proc.call("credentials.set", {"commandId": "k", "ref": "tok", "secret": SECRET})
        assert "result" in stored, stored
        server = {
            "command": "python3",
            "args": ["-c", ECHO],
            "env": {"TOKEN": {"credentialRef": "tok"}},
        }
        updated = proc.call(
            "settings.update", {"commandId": "s", "mcpServers": {"echo": server}}, 30
        )
        assert "result" in updated, updated
        time.sleep(2.0)
        proc.close_stdin()
        proc.wait(10)
    finally:
        proc.kill()
    log = (home / "logs" / "host.log").read_text()
    stderr = proc.stderr_text()
    assert "[redacted]" in log  # the echo really happened
    for text in (log, stderr):
        assert SECRET not in text
        assert "correct horse" not in text


def test_the_mask_takes_any_shape_longest_first_and_key_shapes() -> None:
    mask = SecretMask()
    mask.add("abc")  # too short to mask without blotting out words
    mask.add("p@ss w0rd!*")
    mask.add("p@ss w0rd!*-longer")
    text = "a p@ss w0rd!*-longer and p@ss w0rd!* and sk-ant-0123456789 abc"
    assert mask.mask(text) == "a [redacted] and [redacted] and [redacted] abc"
