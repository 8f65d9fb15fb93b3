"""The executable Chrome starts: this interpreter, by absolute path, on ``panelot_host``.

Chrome runs the manifest's ``path`` directly (on Windows through ``cmd.exe /d /c``), with
the extension's origin as the first argument. A virtual environment's console script
would do on POSIX, but a wrapper with the absolute interpreter path works everywhere and
lets the installer add ``-I`` (isolated mode: neither the working directory nor
``PYTHON*`` variables can put another module in front of the host).
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path, PurePath, PureWindowsPath

POSIX_NAME = "panelot-host-chrome"
WINDOWS_NAME = "panelot-host-chrome.bat"


def wrapper_text(python: PurePath, *, windows: bool = False) -> str:
    """The wrapper's content for the interpreter ``python`` (absolute).

    Raises:
        ValueError: ``python`` is relative, or holds a character the script cannot quote.
    """
    if windows:
        python = PureWindowsPath(python)
    if not python.is_absolute():
        raise ValueError(f"the interpreter path {python} must be absolute")
    if windows:
        if '"' in str(python) or "%" in str(python):
            raise ValueError(f"cannot quote {python} in a batch file")
        return f'@echo off\r\n"{python}" -I -m panelot_host %*\r\n'
    if "\n" in str(python):
        raise ValueError("the interpreter path holds a newline")
    return (
        "#!/bin/sh\n"
        "# Started by the browser for Panelot (native messaging); written by panelot_host.install\n"
        f'exec {shlex.quote(str(python))} -I -m panelot_host "$@"\n'
    )


def write_wrapper(directory: Path, python: Path | None = None, *, windows: bool = False) -> Path:
    """Write the wrapper into ``directory`` (user-only writable, executable); return its path.

    ``python`` defaults to this interpreter (``sys.executable``), made absolute without
    resolving symlinks, so a virtual environment's ``bin/python`` stays the venv's.
    """
    interpreter = python or Path(os.path.abspath(sys.executable))
    text = wrapper_text(interpreter, windows=windows)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / (WINDOWS_NAME if windows else POSIX_NAME)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, "utf-8", newline="")
    os.chmod(tmp, 0o755)
    os.replace(tmp, path)
    return path
