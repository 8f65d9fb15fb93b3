"""The installers users run: the README's first command, literally, in a clean temporary
HOME and a fresh copy of the repository (as CI's container would run it); the wrappers
stay thin; ``install.ps1`` parses (where ``pwsh`` exists)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PASSED_THROUGH = re.compile(r"^(PIP_\w+|\w+_proxy|\w+_PROXY|SSL_CERT_\w+|REQUESTS_CA_BUNDLE)$")


def readme_first_command() -> str:
    readme = (REPO / "README.md").read_text("utf-8")
    section = readme.split("## The two commands", 1)[1]
    match = re.search(r"```sh\n(.*?)\n```", section, flags=re.DOTALL)
    assert match, "the README's two-commands section has no sh block"
    return match.group(1).strip()


def fresh_copy(target: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = REPO / os.fsdecode(name)
        if source.is_file():
            destination = target / os.fsdecode(name)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)
    return target


def clean_environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if PASSED_THROUGH.match(k)}
    env.update(
        HOME=str(home),
        PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        LANG="C.UTF-8",
    )
    # the user's pip cache spares the downloads; what gets installed is the same
    cache = Path(os.environ.get("PIP_CACHE_DIR") or Path.home() / ".cache" / "pip")
    if cache.is_dir():
        env["PIP_CACHE_DIR"] = str(cache)
    return env


def test_the_first_command_is_the_installer_for_chromium() -> None:
    assert readme_first_command() == "bash install/install.sh --browser chromium"


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_readmes_first_command_sets_up_chromium_and_doctor_is_all_green(
    tmp_path: Path,
) -> None:
    repo = fresh_copy(tmp_path / "panelot")
    home = tmp_path / "home"
    home.mkdir()
    done = subprocess.run(
        ["bash", "-c", readme_first_command()],
        cwd=repo,
        env=clean_environment(home),
        capture_output=True,
        text=True,
        timeout=840,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    lines = done.stdout.strip().splitlines()
    assert lines[-1] == "all is well", output
    assert not any(line.startswith("PROBLEM") for line in lines)
    manifest = home / ".config/chromium/NativeMessagingHosts/com.panelot.host.json"
    assert manifest.is_file()
    assert f"ok      chromium: {manifest}" in done.stdout
    data = home / ".local/share/panelot"
    assert (data / "bin" / "panelot-host-chrome").is_file()
    assert (data / "bin" / "panelot-host-chrome").read_text("utf-8").count(
        str(repo / ".venv/bin/python")
    ) == 1


def test_the_shell_and_powershell_installers_only_chain_the_python_commands() -> None:
    shell = (REPO / "install" / "install.sh").read_text("utf-8")
    assert "bash scripts/setup.sh" in shell
    assert 'exec .venv/bin/panelot-host install --doctor "$@"' in shell
    assert os.access(REPO / "install" / "install.sh", os.X_OK)
    powershell = (REPO / "install" / "install.ps1").read_text("utf-8")
    assert "panelot-host.exe install --doctor @args" in powershell
    assert "exit $LASTEXITCODE" in powershell
    for candidate in ('@("py", "-3")', '@("python3")', '@("python")'):
        assert candidate in powershell  # the order ff2mpv uses on Windows


PWSH = shutil.which("pwsh")


@pytest.mark.skipif(PWSH is None, reason="pwsh is not installed (no PowerShell on this machine)")
def test_install_ps1_parses_without_errors() -> None:
    script = (
        "$errors = $null; "
        "[System.Management.Automation.Language.Parser]::ParseFile("
        f"'{REPO / 'install' / 'install.ps1'}', [ref]$null, [ref]$errors) | Out-Null; "
        "if ($errors.Count) { $errors | ForEach-Object { $_.ToString() }; exit 1 }"
    )
    done = subprocess.run(
        [str(PWSH), "-NoProfile", "-Command", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
