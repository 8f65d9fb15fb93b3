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
from collections.abc import Sequence
from pathlib import Path, PurePath, PureWindowsPath

POSIX_NAME = "panelot-host-chrome"
WINDOWS_NAME = "panelot-host-chrome.bat"
ORIGINS_VAR = "PANELOT_ALLOWED_ORIGINS"
HOME_VAR = "PANELOT_HOME"


def wrapper_text(
    python: PurePath,
    *,
    windows: bool = False,
    allowed_origins: Sequence[str] = (),
    panelot_home: PurePath | None = None,
) -> str:
    """The wrapper's content for the interpreter ``python`` (absolute).

    ``allowed_origins`` (already validated ``chrome-extension://<id>/`` origins) are passed
    to the host as ``PANELOT_ALLOWED_ORIGINS``: the host serves only the extensions it was
    installed for, whichever user's ``PANELOT_HOME`` it runs with (a system-wide install).
    ``panelot_home``, when given, is set as ``PANELOT_HOME``: a per-user install made with
    ``PANELOT_HOME`` set keeps using that folder when the browser starts the host from an
    environment without it.

    Raises:
        ValueError: ``python`` is relative, or holds a character the script cannot quote.
    """
    if windows:
        python = PureWindowsPath(str(python))  # parts of a POSIX path lose the drive
    if not python.is_absolute():
        raise ValueError(f"the interpreter path {python} must be absolute")
    if windows:
        if '"' in str(python) or "%" in str(python):
            raise ValueError(f"cannot quote {python} in a batch file")
        env = _batch_env(_variables(allowed_origins, panelot_home))
        return f'@echo off\r\n{env}"{python}" -I -m panelot_host %*\r\n'
    if "\n" in str(python) or "\n" in str(panelot_home or ""):
        raise ValueError("the interpreter or data path holds a newline")
    env = "".join(
        f"{name}={shlex.quote(value)}\nexport {name}\n"
        for name, value in _variables(allowed_origins, panelot_home)
    )
    return (
        "#!/bin/sh\n"
        "# Started by the browser for Panelot (native messaging); written by panelot_host.install\n"
        f"{env}"
        f'exec {shlex.quote(str(python))} -I -m panelot_host "$@"\n'
    )


def _variables(origins: Sequence[str], home: PurePath | None) -> list[tuple[str, str]]:
    variables = [(ORIGINS_VAR, ",".join(origins))] if origins else []
    return variables + ([(HOME_VAR, str(home))] if home is not None else [])


def _batch_env(variables: list[tuple[str, str]]) -> str:
    for _, value in variables:
        if '"' in value or "%" in value:
            raise ValueError(f"cannot quote {value} in a batch file")
    return "".join(f'set "{name}={value}"\r\n' for name, value in variables)


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
