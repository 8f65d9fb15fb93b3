"""Every package's docstring is its map: it names each of its modules (style.md: say in
each package's docstring what its modules are for)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[1] / "host" / "panelot_host"
PACKAGES = sorted(p.parent for p in PACKAGE_ROOT.rglob("__init__.py"))


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: str(p.relative_to(PACKAGE_ROOT)))
def test_the_package_docstring_names_every_module(package: Path) -> None:
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    modules = sorted(p.stem for p in package.glob("*.py") if p.stem != "__init__")
    subpackages = sorted(p.name for p in package.iterdir() if (p / "__init__.py").exists())
    missing = [m for m in modules + subpackages if f"``{m}``" not in docstring]
    assert not missing, f"{package.name}/__init__.py does not name: {missing}"
