"""The extension's pinned ID and permissions agree with what the README tells users."""

from __future__ import annotations

import json
import re

from tests.e2e.harness import EXTENSION, REPO, extension_id


def test_the_readmes_give_the_id_chrome_derives_from_the_key() -> None:
    ext_id = extension_id()
    assert re.fullmatch(r"[a-p]{32}", ext_id)
    assert ext_id in (REPO / "README.md").read_text("utf-8")
    assert ext_id in (EXTENSION / "README.md").read_text("utf-8")


def test_every_permission_is_justified_in_the_readme() -> None:
    manifest = json.loads((EXTENSION / "manifest.json").read_text("utf-8"))
    readme = (REPO / "README.md").read_text("utf-8")
    justified = set(re.findall(r"^\| `([^`]+)` \|", readme, flags=re.MULTILINE))
    assert set(manifest["permissions"]) <= justified
    assert {"nativeMessaging", "sidePanel", "storage", "tabs", "scripting"} <= set(
        manifest["permissions"]
    )
    for host_permission in manifest.get("host_permissions", []):
        assert f"host permission `{host_permission}`" in readme
    assert manifest["manifest_version"] == 3
    assert manifest["side_panel"]["default_path"] == "sidepanel.html"
