"""``scripts/setup.sh`` (the README's main job) installs the runtime only; the test command
adds the test and lint extras. Runs the real script on a fresh copy of the repository."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def fresh_copy(target: Path) -> Path:
    """The tracked files of the working tree (a fresh clone's content, with local edits)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in listed)):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def imports(venv_python: Path, module: str) -> bool:
    probe = subprocess.run([str(venv_python), "-c", f"import {module}"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.skipif(sys.platform == "win32", reason="bash script")
def test_setup_installs_the_runtime_and_not_the_test_tools(tmp_path: Path) -> None:
    repo = fresh_copy(tmp_path / "repo")
    done = subprocess.run(
        ["bash", "scripts/setup.sh"],
        cwd=repo,
        env={
            "PATH": "/usr/bin:/bin:/usr/local/bin",
            "PYTHON": sys.executable,
            "HOME": str(tmp_path),
        },
        capture_output=True,
        text=True,
        timeout=580,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    python = repo / ".venv" / "bin" / "python"
    for runtime in ("panelot_host.cli.main", "mcp", "keyring", "cryptography", "httpx_sse"):
        assert imports(python, runtime), runtime
    for extra in ("pytest", "playwright", "hypothesis", "ruff", "mypy"):
        assert not imports(python, extra), f"{extra} is not needed to run the host"
    version = subprocess.run(
        [str(repo / ".venv" / "bin" / "panelot-host"), "version"], capture_output=True, text=True
    )
    assert version.stdout.startswith("panelot-host ")


def test_the_test_command_installs_the_test_and_lint_extras() -> None:
    script = (ROOT / "scripts" / "test.sh").read_text("utf-8").splitlines()
    setup = script.index("bash scripts/setup.sh")
    extras = [i for i, line in enumerate(script) if "pip install" in line and "[test,lint]" in line]
    checks = [i for i, line in enumerate(script) if "ruff check" in line or "pytest" in line]
    assert extras and setup < extras[0] < min(checks)
