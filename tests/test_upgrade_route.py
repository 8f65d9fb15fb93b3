"""The command that upgrades the host is the one of the route it was installed by."""

from __future__ import annotations

from pathlib import Path

import pytest

from panelot_host.upgrade_route import install_route, upgrade_command

SITE = "lib/python3.12/site-packages/panelot_host"


@pytest.mark.parametrize(
    ("prefix", "route", "command"),
    [
        ("home/u/.local/pipx/venvs/panelot-host", "pipx", "pipx upgrade panelot-host"),
        ("home/u/.local/share/pipx/venvs/panelot-host", "pipx", "pipx upgrade panelot-host"),
        ("home/u/.local/share/uv/tools/panelot-host", "uv", "uv tool upgrade panelot-host"),
        ("opt/venv", "pip", "/opt/venv/bin/python -m pip install --upgrade panelot-host"),
    ],
)
def test_an_installed_package_is_upgraded_by_its_installer(
    tmp_path: Path, prefix: str, route: str, command: str
) -> None:
    root = tmp_path / prefix
    assert install_route(root, root / SITE) == route
    python = "/opt/venv/bin/python"
    assert upgrade_command(root, root / SITE, python) == command


def test_a_clone_is_upgraded_by_pulling_and_installing_again(tmp_path: Path) -> None:
    clone = tmp_path / "my clone"
    (clone / "install").mkdir(parents=True)
    (clone / "install" / "install.sh").write_text("#!/bin/sh\n")
    package = clone / "host" / "panelot_host"
    assert install_route(clone / ".venv", package) == "clone"
    assert upgrade_command(clone / ".venv", package) == (
        f"cd '{clone}' && git pull && bash install/install.sh"
    )


def test_a_folder_named_host_without_the_installer_is_not_a_clone(tmp_path: Path) -> None:
    package = tmp_path / "host" / "panelot_host"
    assert install_route(tmp_path / "pipx" / "venvs" / "x", package) == "pipx"


def test_this_checkout_is_a_clone() -> None:
    assert upgrade_command().endswith("&& git pull && bash install/install.sh")
