"""Which files of ``extension-shim/`` make the extension a browser loads.

The standard library only: the wheel's build hook (``hatch_build.py``) loads this file by
path, in a build environment where the host's dependencies are absent, so the wheel, the
copy ``panelot-host extension path`` makes and the packed zip hold exactly the same files.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path, PurePosixPath

ROOT_FILES = ("manifest.json", "worker.js", "sidepanel.html", "sidepanel.css")
"""The files at the extension's root that the manifest and the panel's page name."""
FOLDERS = ("src", "vendor", "icons")
"""The folders whose files the worker and the panel import (``vendor/`` holds the copies of
the panel's npm libraries that ``scripts/extension-libs.sh`` makes), and the icons the
manifest and the notifications show."""
TYPE_ONLY_SUFFIXES = (".d.ts", ".d.mts")
"""Type declarations for ``tsc --checkJs``: the browser never loads them."""
NEEDED_LIBRARIES = ("vendor/marked.esm.js", "vendor/purify.es.mjs")
"""The panel's npm libraries, absent from a clone until ``scripts/extension-libs.sh`` runs."""
WHEEL_FOLDER = "panelot_host/extension"
"""Where the wheel carries the extension (beside the package's modules)."""


class ExtensionIncomplete(Exception):
    """The extension's source folder lacks a file it needs (the message says how to get it)."""


def extension_files(source: Path) -> Iterator[PurePosixPath]:
    """The extension's files under ``source``, as relative POSIX paths, in a stable order.

    Raises:
        ExtensionIncomplete: the manifest or one of the panel's libraries is missing.
    """
    missing = [
        name for name in ("manifest.json", *NEEDED_LIBRARIES) if not (source / name).is_file()
    ]
    if missing:
        raise ExtensionIncomplete(
            f"{source} lacks {', '.join(missing)}: run 'bash scripts/extension-libs.sh' "
            "(npm copies the side panel's libraries into extension-shim/vendor/) first"
        )
    for name in ROOT_FILES:
        if (source / name).is_file():
            yield PurePosixPath(name)
    for folder in FOLDERS:
        found = sorted(p for p in (source / folder).rglob("*") if p.is_file())
        for path in found:
            if not path.name.endswith(TYPE_ONLY_SUFFIXES):
                yield PurePosixPath(path.relative_to(source).as_posix())
