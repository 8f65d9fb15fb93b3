"""The extension's files, its copy under PANELOT_HOME (``panelot-host extension path``) and
the copy's removal by ``uninstall``."""

from __future__ import annotations

import io
import json
import re
import stat
from pathlib import Path, PurePosixPath

import pytest
from tests.e2e.harness import EXTENSION

from panelot_host.cli.extension_cmd import run_path
from panelot_host.install.extension import (
    bundled_extension,
    copied_stamp,
    copy_extension,
    diagnose_copy,
    remove_copy,
    stamp_of,
)
from panelot_host.install.extension_files import ExtensionIncomplete, extension_files


def _source(root: Path, version: str = "1.2.3") -> Path:
    source = root / "source"
    files = {
        "manifest.json": json.dumps({"name": "Panelot", "version": version}),
        "worker.js": "import './src/a.js';",
        "src/a.js": "export const a = 1;",
        "src/types.d.ts": "export type A = 1;",
        "vendor/marked.esm.js": "export const marked = 1;",
        "vendor/marked.esm.d.ts": "export {};",
        "vendor/purify.es.mjs": "export default 1;",
        "README.md": "not part of the extension",
        "test/a.test.mjs": "not either",
    }
    for name, text in files.items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(text, "utf-8")
    return source


def test_the_extension_is_its_runtime_files_without_type_declarations(tmp_path: Path) -> None:
    names = [p.as_posix() for p in extension_files(_source(tmp_path))]
    assert names == [
        "manifest.json",
        "worker.js",
        "src/a.js",
        "vendor/marked.esm.js",
        "vendor/purify.es.mjs",
    ]


def test_a_source_without_the_panels_libraries_says_how_to_get_them(tmp_path: Path) -> None:
    source = _source(tmp_path)
    (source / "vendor" / "purify.es.mjs").unlink()
    with pytest.raises(ExtensionIncomplete, match=r"vendor/purify.es.mjs.*extension-libs.sh"):
        list(extension_files(source))


def test_every_module_the_real_extension_imports_is_one_of_its_files() -> None:
    """What the copy, the wheel and the zip hold is enough: every relative import, every
    script and style of the panel's page and every file the manifest names is in it."""
    files = {p.as_posix() for p in extension_files(EXTENSION)}
    needed: set[str] = set()
    manifest = json.loads((EXTENSION / "manifest.json").read_text("utf-8"))
    needed.add(manifest["background"]["service_worker"])
    needed.add(manifest["side_panel"]["default_path"])
    for script in manifest["content_scripts"]:
        needed.update(script["js"])
    needed.update(manifest.get("icons", {}).values())
    page = (EXTENSION / "sidepanel.html").read_text("utf-8")
    needed.update(m.lstrip("./") for m in re.findall(r'(?:src|href)="([^":]+)"', page))
    for name in files:
        if not name.endswith((".js", ".mjs")):
            continue
        text = (EXTENSION / name).read_text("utf-8")
        # a browser needs the file's extension; JSDoc's import("../types") is for tsc only
        for spec in re.findall(r"""(?:from|import)\s*\(?\s*["'](\.{1,2}/[^"']+\.m?js)["']""", text):
            needed.add((PurePosixPath(name).parent / spec).as_posix())
    assert len(needed) > 40  # the worker's and the panel's module graphs were read
    resolved = {str(Path(n)).replace("\\", "/") for n in needed}
    normalised = {str(PurePosixPath(*_normal_parts(n))) for n in resolved}
    assert normalised <= files, sorted(normalised - files)


def _normal_parts(name: str) -> list[str]:
    parts: list[str] = []
    for part in name.split("/"):
        if part == "..":
            parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return parts


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_copy_holds_the_extension_privately_and_is_left_alone_when_current(
    tmp_path: Path,
) -> None:
    source, home = _source(tmp_path), tmp_path / "home"
    first = copy_extension(source, home)
    assert first.refreshed and first.path == home / "extension"
    assert first.stamp.version == "1.2.3"
    copied = sorted(p.relative_to(first.path).as_posix() for p in first.path.rglob("*"))
    assert copied == [
        "manifest.json",
        "src",
        "src/a.js",
        "vendor",
        "vendor/marked.esm.js",
        "vendor/purify.es.mjs",
        "worker.js",
    ]
    assert _mode(first.path) == 0o700 and _mode(first.path / "src" / "a.js") == 0o600
    before = (first.path / "src" / "a.js").stat().st_mtime_ns
    again = copy_extension(source, home)
    assert not again.refreshed
    assert (first.path / "src" / "a.js").stat().st_mtime_ns == before


def test_an_upgrade_refreshes_the_copy_in_the_same_folder(tmp_path: Path) -> None:
    source, home = _source(tmp_path), tmp_path / "home"
    copy_extension(source, home)
    (source / "src" / "a.js").write_text("export const a = 2;", "utf-8")
    (source / "manifest.json").write_text(json.dumps({"version": "1.3.0"}), "utf-8")
    (source / "src" / "gone.js").write_text("", "utf-8")
    copy_extension(source, home)
    (source / "src" / "gone.js").unlink()
    upgraded = copy_extension(source, home)
    assert upgraded.refreshed and upgraded.path == home / "extension"
    assert (upgraded.path / "src" / "a.js").read_text("utf-8") == "export const a = 2;"
    assert not (upgraded.path / "src" / "gone.js").exists()  # exactly the new files
    assert copied_stamp(home) == stamp_of(source)
    assert sorted(p.name for p in home.iterdir()) == ["extension", "extension.json"]


def test_a_failed_refresh_leaves_the_previous_copy_whole(tmp_path: Path) -> None:
    source, home = _source(tmp_path), tmp_path / "home"
    copy_extension(source, home)
    (source / "src" / "a.js").write_text("changed", "utf-8")
    (source / "vendor" / "marked.esm.js").unlink()
    with pytest.raises(ExtensionIncomplete):
        copy_extension(source, home)
    assert (home / "extension" / "src" / "a.js").read_text("utf-8") == "export const a = 1;"


def test_uninstall_removes_the_copy_unless_it_was_changed_by_hand(tmp_path: Path) -> None:
    source, home = _source(tmp_path), tmp_path / "home"
    copy_extension(source, home)
    assert [c.status for c in remove_copy(home, dry_run=True)] == ["removed"]
    assert (home / "extension").is_dir()
    (home / "extension" / "src" / "a.js").write_text("mine", "utf-8")
    (left,) = remove_copy(home)
    assert left.status == "left (changed since install)" and (home / "extension").is_dir()
    copy_extension(source, home)  # the stamp no longer matches: a fresh copy
    (removed,) = remove_copy(home)
    assert removed.status == "removed"
    assert list(home.iterdir()) == []
    assert remove_copy(home) == []


def test_extension_path_prints_the_copy_of_the_extension_this_host_carries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = io.StringIO()
    status = run_path(None, out=out, environ={"PANELOT_HOME": str(tmp_path)})  # type: ignore[arg-type]
    assert status == 0
    folder = Path(out.getvalue().strip())
    assert folder == tmp_path / "extension"
    assert bundled_extension() == EXTENSION  # a clone carries extension-shim/
    assert json.loads((folder / "manifest.json").read_text("utf-8")) == json.loads(
        (EXTENSION / "manifest.json").read_text("utf-8")
    )
    assert "updated the extension" in capsys.readouterr().err
    run_path(None, out=io.StringIO(), environ={"PANELOT_HOME": str(tmp_path)})  # type: ignore[arg-type]
    assert capsys.readouterr().err == ""  # current: nothing said, nothing written


def test_doctor_says_whether_the_copy_is_the_extension_this_host_carries(
    tmp_path: Path,
) -> None:
    source, home = _source(tmp_path), tmp_path / "home"
    (missing,) = diagnose_copy(home, source)
    assert missing.status == "note" and "panelot-host extension path" in missing.fix
    copy_extension(source, home)
    (current,) = diagnose_copy(home, source)
    assert current.status == "ok" and current.message.startswith("1.2.3 in ")
    (source / "manifest.json").write_text(json.dumps({"version": "1.3.0"}), "utf-8")
    (older,) = diagnose_copy(home, source)  # the host was upgraded, the copy was not
    assert older.status == "problem"
    assert "holds extension 1.2.3, this host carries 1.3.0" in older.message
    assert older.fix.startswith("panelot-host extension path, then press")
    copy_extension(source, home)
    (home / "extension" / "worker.js").write_text("edited", "utf-8")
    (edited,) = diagnose_copy(home, source)
    assert edited.status == "problem" and "other files" in edited.message
