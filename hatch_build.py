"""The wheel's build hook: the wheel carries the extension, so installing needs no npm.

It copies into ``panelot_host/extension/`` exactly the files of ``extension-shim/`` that a
browser loads (``panelot_host/install/extension_files.py`` says which; loaded by path, as
the build environment has none of the host's dependencies). The panel's npm libraries
must be in ``extension-shim/vendor/`` (``bash scripts/extension-libs.sh``): the build stops
with that command when they are not. An sdist carries them too (``artifacts`` in
pyproject.toml), so a wheel built from it needs no npm either.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

ROOT = Path(__file__).resolve().parent
SELECTION = ROOT / "host" / "panelot_host" / "install" / "extension_files.py"


def _selection() -> Any:
    spec = importlib.util.spec_from_file_location("panelot_extension_files", SELECTION)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ExtensionInWheel(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return  # an editable install (a clone's set-up) loads extension-shim/ itself
        selection = _selection()
        source = ROOT / "extension-shim"
        try:
            files = list(selection.extension_files(source))
        except selection.ExtensionIncomplete as exc:
            raise SystemExit(f"cannot build the wheel: {exc}") from exc
        for relative in files:
            target = f"{selection.WHEEL_FOLDER}/{relative.as_posix()}"
            build_data["force_include"][str(source / relative)] = target
