"""``panelot-host doctor``: each broken setup in turn is found, with its fix; a good one
is all well. Installs are real files in a temporary home; hosts are really started."""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from panelot_host.cli.doctor import run_doctor
from panelot_host.install import HOST_NAME
from panelot_host.install.machine import Machine
from panelot_host.install.registry import RecordingRegistry

from .helpers import install, machine

Breaker = Callable[[Machine], None]
CHROMIUM_MANIFEST = ".config/chromium/NativeMessagingHosts/com.panelot.host.json"


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PANELOT_ALLOWED_ORIGINS", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def doctor(m: Machine, **given: object) -> tuple[int, str]:
    values: dict[str, object] = {
        "browser": ["chromium"],
        "user_data_dir": None,
        "system": False,
        "json": False,
        "offline": True,
    }
    values.update(given)
    out = io.StringIO()
    status = run_doctor(argparse.Namespace(**values), machine=m, out=out, environ={})
    return status, out.getvalue()


def manifest_of(m: Machine) -> Path:
    return m.home / CHROMIUM_MANIFEST


def wrapper_of(m: Machine) -> Path:
    return m.panelot_home / "bin" / "panelot-host-chrome"


def edit_manifest(change: Callable[[dict[str, object]], None]) -> Breaker:
    def breaker(m: Machine) -> None:
        data = json.loads(manifest_of(m).read_text("utf-8"))
        change(data)
        manifest_of(m).write_text(json.dumps(data), "utf-8")

    return breaker


def edit_wrapper(change: Callable[[str], str]) -> Breaker:
    def breaker(m: Machine) -> None:
        wrapper_of(m).write_text(change(wrapper_of(m).read_text("utf-8")), "utf-8")

    return breaker


def write_policy(policy: dict[str, object]) -> Breaker:
    def breaker(m: Machine) -> None:
        folder = m.root / "etc/chromium/policies/managed"
        folder.mkdir(parents=True)
        (folder / "corp.json").write_text(json.dumps(policy), "utf-8")

    return breaker


def rename_manifest(m: Machine) -> None:
    data = json.loads(manifest_of(m).read_text("utf-8"))
    data["name"] = "com.panelot.other"
    manifest_of(m).write_text(json.dumps(data), "utf-8")


CAUSES: dict[str, tuple[Breaker, str, str]] = {
    "manifest missing": (
        lambda m: manifest_of(m).unlink(),
        "no host manifest at",
        "panelot-host install --browser chromium",
    ),
    "manifest not JSON": (
        lambda m: manifest_of(m).write_text("{not json", "utf-8"),
        "is not valid JSON",
        "panelot-host install --browser chromium",
    ),
    "name not the file's": (
        rename_manifest,
        "is not the file's name 'com.panelot.host'",
        "panelot-host install --browser chromium",
    ),
    "relative path": (
        edit_manifest(lambda d: d.update(path="bin/panelot-host-chrome")),
        "is relative",
        "panelot-host install --browser chromium",
    ),
    "executable missing": (
        lambda m: wrapper_of(m).unlink(),
        "the host executable is missing",
        "panelot-host install --browser chromium",
    ),
    "not executable": (
        lambda m: wrapper_of(m).chmod(0o600),
        "not executable",
        "panelot-host install --browser chromium",
    ),
    "shebang interpreter gone": (
        edit_wrapper(lambda t: t.replace("#!/bin/sh", "#!/nonexistent/sh")),
        "#! interpreter /nonexistent/sh is missing",
        "panelot-host install --browser chromium",
    ),
    "python gone": (
        edit_wrapper(lambda t: t.replace("exec ", "exec /gone/venv/bin/python3 -I -m x #")),
        "the Python it runs, /gone/venv/bin/python3, is gone",
        "panelot-host install --browser chromium",
    ),
    "origin not allowed": (
        edit_manifest(lambda d: d.update(allowed_origins=["chrome-extension://" + "a" * 32 + "/"])),
        "allowed_origins lacks chrome-extension://fgopaapjpackdnagfgbbdlkanlmcoohh/",
        "panelot-host install --browser chromium",
    ),
    "host refuses the origin": (
        edit_wrapper(
            lambda t: t.replace("export PANELOT_ALLOWED_ORIGINS", "").replace(
                "PANELOT_ALLOWED_ORIGINS=", "UNUSED="
            )
        ),
        "the host refuses chrome-extension://fgopaapjpackdnagfgbbdlkanlmcoohh/",
        "panelot-host install",
    ),
    "host crashes": (
        edit_wrapper(lambda t: t.replace("exec ", "echo boom >&2; exit 7\nexec ")),
        "exited with status 7 ('Native host has exited'): boom",
        "panelot-host logs",
    ),
    "stray stdout": (
        edit_wrapper(lambda t: t.replace("exec ", "echo welcome\nexec ")),
        "bytes to stdout that are not messages",
        "remove whatever prints to stdout",
    ),
    "user-level hosts disabled by policy": (
        write_policy({"NativeMessagingUserLevelHosts": False}),
        "NativeMessagingUserLevelHosts=false",
        "sudo panelot-host install --system --browser chromium",
    ),
    "host blocked by policy": (
        write_policy({"NativeMessagingBlocklist": ["*"]}),
        "enterprise policy blocks com.panelot.host",
        "NativeMessagingAllowlist",
    ),
}


def test_a_good_install_is_all_well(tmp_path: Path) -> None:
    m = machine(tmp_path, on_path=("chromium",))
    install(m, browser=["chromium"])
    status, report = doctor(m)
    assert status == 0, report
    assert report.splitlines()[-1] == "all is well"
    assert "PROBLEM" not in report


@pytest.mark.parametrize("cause", sorted(CAUSES))
def test_doctor_names_each_cause_with_its_fix(tmp_path: Path, cause: str) -> None:
    breaker, message, fix = CAUSES[cause]
    m = machine(tmp_path, on_path=("chromium",))
    install(m, browser=["chromium"])
    breaker(m)
    status, report = doctor(m)
    assert status == 1
    problems = [line for line in report.splitlines() if line.startswith("PROBLEM")]
    assert len(problems) == 1, report
    assert message in problems[0]
    assert fix in problems[0].split(" -- fix: ")[1]
    assert report.splitlines()[-1] == "1 problem(s) found"


def test_json_output_for_tools(tmp_path: Path) -> None:
    m = machine(tmp_path, on_path=("chromium",))
    install(m, browser=["chromium"])
    manifest_of(m).unlink()
    status, out = doctor(m, json=True)
    report = json.loads(out)
    assert status == 1 and report["ok"] is False
    problem = next(f for f in report["findings"] if f["status"] == "problem")
    assert problem["check"] == "chromium" and "install" in problem["fix"]


def test_a_policy_allowlist_lifts_a_blocklist(tmp_path: Path) -> None:
    m = machine(tmp_path, on_path=("chromium",))
    install(m, browser=["chromium"])
    write_policy({"NativeMessagingBlocklist": ["*"], "NativeMessagingAllowlist": [HOST_NAME]})(m)
    assert doctor(m)[0] == 0


def test_a_system_manifest_serves_when_there_is_no_user_one(tmp_path: Path) -> None:
    admin = machine(tmp_path, admin=True, on_path=("chromium",))
    install(admin, browser=["chromium"], system=True)
    status, report = doctor(machine(tmp_path))
    assert status == 0, report
    assert str(admin.root / "etc/chromium/native-messaging-hosts") in report


def test_no_browser_found_is_a_problem(tmp_path: Path) -> None:
    status, report = doctor(machine(tmp_path), browser=None)
    assert status == 1 and "no supported browser found" in report


def test_user_data_dir_checks_that_profile(tmp_path: Path) -> None:
    m = machine(tmp_path)
    profile = tmp_path / "profile"
    install(m, user_data_dir=profile)
    assert doctor(m, browser=None, user_data_dir=profile)[0] == 0
    (profile / "NativeMessagingHosts" / f"{HOST_NAME}.json").unlink()
    status, report = doctor(m, browser=None, user_data_dir=profile)
    assert status == 1 and f"--user-data-dir {profile}" in report


EDGE_KEY = r"Software\Microsoft\Edge\NativeMessagingHosts\com.panelot.host"


def windows_doctor(tmp_path: Path, registry: RecordingRegistry) -> tuple[int, str]:
    m = machine(tmp_path, "win32", registry=registry)
    # the host cannot be started on Linux through cmd.exe: the registry and the manifest
    # it names are what is checked here
    from panelot_host.install.diagnose import diagnose_install

    findings = diagnose_install(m, ["edge"], start_host=False)
    lines = [f"{f.status} {f.message} -- {f.fix}" for f in findings]
    return (0 if all(f.status == "ok" for f in findings) else 1), "\n".join(lines)


def test_windows_registry_key_missing_or_pointing_elsewhere(tmp_path: Path) -> None:
    registry = RecordingRegistry()
    m = machine(tmp_path, "win32", registry=registry)
    install(m, browser=["edge"])
    assert windows_doctor(tmp_path, registry)[0] == 0
    other = tmp_path / "other.json"
    other.write_bytes((m.panelot_home / "bin" / f"{HOST_NAME}.json").read_bytes())
    registry.set_default("HKCU", EDGE_KEY, str(other))
    status, report = windows_doctor(tmp_path, registry)
    assert status == 1 and f"points to {other}, not to the installed" in report
    registry.delete_key("HKCU", EDGE_KEY)
    status, report = windows_doctor(tmp_path, registry)
    assert status == 1 and f"registry key HKCU\\{EDGE_KEY} is missing" in report
    assert "panelot-host install --browser edge" in report


def test_the_host_is_started_with_the_doctors_data_folder(tmp_path: Path) -> None:
    m = machine(tmp_path, on_path=("chromium",))
    install(m, browser=["chromium"])
    assert doctor(m)[0] == 0
    assert (m.panelot_home / "logs" / "host.log").exists()
    assert os.stat(m.panelot_home).st_mode & 0o077 == 0


CHROME_POLICY = r"SOFTWARE\Policies\Google\Chrome"


def test_windows_policies_block_or_restrict_to_hklm(tmp_path: Path) -> None:
    registry = RecordingRegistry()
    m = machine(tmp_path, "win32", registry=registry)
    install(m, browser=["chrome"])
    from panelot_host.install.diagnose import diagnose_install

    def problems() -> list[str]:
        found = diagnose_install(m, ["chrome"], start_host=False)
        return [f"{f.message} -- {f.fix}" for f in found if f.status == "problem"]

    assert problems() == []
    registry.named[("HKLM", CHROME_POLICY.lower())] = {"NativeMessagingUserLevelHosts": 0}
    [restricted] = problems()
    assert "HKLM\\Software\\Google\\Chrome" in restricted
    assert "NativeMessagingUserLevelHosts=0" in restricted
    assert restricted.endswith("as administrator: panelot-host install --system --browser chrome")
    registry.named.clear()
    blocklist = (CHROME_POLICY + r"\NativeMessagingBlocklist").lower()
    registry.named[("HKCU", blocklist)] = {"1": "com.panelot.host"}
    [blocked] = problems()
    assert "enterprise policy blocks com.panelot.host" in blocked
    allowlist = (CHROME_POLICY + r"\NativeMessagingAllowlist").lower()
    registry.named[("HKLM", allowlist)] = {"1": "com.panelot.host"}
    assert problems() == []


def test_without_browser_names_doctor_checks_those_found_and_those_installed_for(
    tmp_path: Path,
) -> None:
    m = machine(tmp_path, on_path=("chromium", "brave-browser"))
    install(m, browser=["chromium", "brave"])
    status, report = doctor(m, browser=None)
    assert status == 0, report
    assert "ok      chromium:" in report and "ok      brave:" in report
    # Brave and its folder are gone since: it was installed for, so it is still checked
    shutil.rmtree(m.home / ".config/BraveSoftware")
    without_brave = machine(tmp_path, on_path=("chromium",))
    assert not without_brave.present("brave")
    status, report = doctor(without_brave, browser=None)
    assert status == 1 and "PROBLEM brave: no host manifest" in report
