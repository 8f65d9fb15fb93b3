"""The extension's module map (``extension-shim/README.md``) names every module the
extension ships, as the host's package docstrings name theirs (issue 27)."""

from __future__ import annotations

from pathlib import Path

EXTENSION = Path(__file__).resolve().parent.parent / "extension-shim"


def test_every_extension_module_is_in_the_readmes_map() -> None:
    readme = (EXTENSION / "README.md").read_text("utf-8")
    modules = sorted(
        path.relative_to(EXTENSION).as_posix()
        for path in (EXTENSION / "src").rglob("*.js")
        if "generated" not in path.parts
    )
    assert modules, "no module found"
    missing = [m for m in modules if f"`{Path(m).name}`" not in readme and f"`{m}`" not in readme]
    assert missing == [], f"not in extension-shim/README.md's module map: {missing}"
