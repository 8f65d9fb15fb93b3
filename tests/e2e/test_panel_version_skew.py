"""Version skew in the panel (issue 28): a host that shares no protocol version with the
extension is a banner that says which side to update and how, with the command to copy.
The host here is a tiny fake that answers ``initialize`` as a host would refuse it."""

from __future__ import annotations

import json
import stat
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import expect

import panelot_host

from .harness import EXTENSION, Browser
from .panel_kit import both_schemes

# Answers every initialize with the refusal of a host that negotiates (an older one:
# update the host), then keeps reading until Chrome closes the Port.
FAKE_HOST = textwrap.dedent(
    """\
    import json, struct, sys
    REFUSAL = {
        "code": -32602,
        "message": "unsupported protocol version: update the host",
        "data": {
            "kind": "invalid_params",
            "errors": [{"path": "$.params.protocolVersion",
                        "message": "this host speaks protocol version 0"}],
            "protocolVersions": {"oldest": 0, "newest": 0},
            "hostVersion": "0.0.9",
            "update": "host",
            "hostUpdateCommand": "uv tool upgrade panelot-host",
        },
    }
    while True:
        header = sys.stdin.buffer.read(4)
        if len(header) < 4:
            break
        message = json.loads(sys.stdin.buffer.read(struct.unpack("=I", header)[0]))
        if message.get("method") == "initialize":
            out = json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": REFUSAL}).encode()
            sys.stdout.buffer.write(struct.pack("=I", len(out)) + out)
            sys.stdout.buffer.flush()
    """
)


def _fake_host(folder: Path) -> Path:
    script = folder / "refusing_host.py"
    script.write_text(FAKE_HOST)
    launcher = folder / "refusing-host"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {script}\n")
    launcher.chmod(launcher.stat().st_mode | stat.S_IXUSR)
    return launcher


def test_an_older_host_is_a_banner_with_the_command_that_updates_it(
    launch_profile: Callable[..., Browser], tmp_path: Path
) -> None:
    browser = launch_profile(host_executable=_fake_host(tmp_path))
    panel = browser.open_panel()
    banner = panel.get_by_role("alert")
    expect(banner).to_contain_text("Update the Panelot host")
    expect(banner).to_contain_text(
        "The Panelot host is older than this extension: run uv tool upgrade panelot-host."
    )
    expect(banner.locator("pre")).to_have_text("uv tool upgrade panelot-host")
    expect(banner.get_by_role("button", name="Copy command")).to_be_visible()
    details = banner.get_by_role("group").filter(has_text="Details")
    details.get_by_text("Details").click()
    expect(details).to_contain_text("the host (0.0.9) speaks protocol version 0")
    # said once, in words: the raw refusal is no second notice
    expect(panel.get_by_text("unsupported protocol version")).to_have_count(0)
    both_schemes(panel, "version-skew")


def test_settings_about_says_the_extensions_the_hosts_and_the_protocols_versions(
    browser: Browser,
) -> None:
    manifest = json.loads((EXTENSION / "manifest.json").read_text("utf-8"))
    panel = browser.open_panel()
    panel.get_by_role("button", name="Settings").click()
    about = panel.get_by_role("region", name="About")
    expect(about.get_by_role("heading", name="About")).to_be_visible()
    expect(about.get_by_text(f"Extension {manifest['version']}", exact=True)).to_be_visible()
    expect(about.get_by_text(f"Host {panelot_host.__version__}", exact=True)).to_be_visible()
    expect(about.get_by_text("Protocol 1", exact=True)).to_be_visible()
    about.scroll_into_view_if_needed()
    both_schemes(panel, "settings-about")
