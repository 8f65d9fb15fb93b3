"""``doctor``'s install checks: every cause of "Specified native messaging host not found",
"Access ... is forbidden", "Failed to start" and "Native host has exited" that can be seen
without a browser (the error messages of Chrome's native-messaging documentation).

For each browser: enterprise policy, where its manifest is (per-user folder, system folder,
or the Windows registry key), the manifest as Chrome reads it, the executable it names
(present, executable, its ``#!`` interpreter and Python still there), and finally the host
itself started as Chrome would start it, with stdin closed at once: it must accept our
extension's origin, write nothing to stdout and exit 0.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import msgspec

from panelot_host.install.locations import registry_key
from panelot_host.install.machine import Machine
from panelot_host.install.manifest import HOST_NAME, PINNED_EXTENSION_ID, extension_origin
from panelot_host.install.policy import HostPolicy, read_policy
from panelot_host.install.record import load_record

Status = Literal["ok", "problem", "note"]
START_TIMEOUT_S = 30.0
REINSTALL = "panelot-host install"


class Finding(msgspec.Struct, frozen=True):
    check: str
    status: Status
    message: str
    fix: str = ""


def diagnose_install(
    machine: Machine,
    browsers: Sequence[str],
    *,
    system: bool = False,
    user_data_dir: Path | None = None,
    start_host: bool = True,
) -> list[Finding]:
    """Findings for ``browsers`` (or the one profile folder ``user_data_dir``)."""
    checker = _ManifestChecker(machine, start_host)
    if user_data_dir is not None:
        path = user_data_dir / "NativeMessagingHosts" / f"{HOST_NAME}.json"
        fix = f"{REINSTALL} --user-data-dir {shlex.quote(str(user_data_dir))}"
        return checker.check("profile", path, fix)
    if not browsers:
        return [
            Finding(
                "browsers",
                "problem",
                "no supported browser found (Chrome, Chromium, Edge, Brave, Vivaldi)",
                "install one (Debian: apt-get install chromium), or name it: "
                f"{REINSTALL} --browser chromium",
            )
        ]
    findings: list[Finding] = []
    for browser in browsers:
        if machine.windows:
            findings.extend(_windows_browser(machine, checker, browser, system))
        else:
            findings.extend(_posix_browser(machine, checker, browser, system))
    return findings


def _posix_browser(
    machine: Machine, checker: _ManifestChecker, browser: str, system: bool
) -> list[Finding]:
    name = f"{HOST_NAME}.json"
    user_path = machine.manifest_dir(browser, system=False) / name
    system_path = machine.manifest_dir(browser, system=True) / name
    policy = read_policy(browser, machine.platform, machine.root, HOST_NAME)
    blocked = _blocked(browser, policy)
    findings: list[Finding] = [] if blocked is None else [blocked]
    candidates = [system_path] if system or not policy.user_level_hosts else [user_path]
    candidates += [] if system_path in candidates else [system_path]
    chosen = next((p for p in candidates if p.exists()), None)
    if chosen is None:
        if not policy.user_level_hosts and user_path.exists():
            findings.append(
                Finding(
                    browser,
                    "problem",
                    f"policy NativeMessagingUserLevelHosts=false ({policy.source}) makes "
                    f"{browser} ignore the per-user manifest {user_path}",
                    f"sudo {REINSTALL} --system --browser {browser}",
                )
            )
            return findings
        where = system_path if system else user_path
        findings.append(
            Finding(
                browser,
                "problem",
                f"no host manifest at {where} (the browser says 'Specified native "
                "messaging host not found')",
                _reinstall(browser, system),
            )
        )
        return findings
    return findings + checker.check(browser, chosen, _reinstall(browser, system))


def _windows_browser(
    machine: Machine, checker: _ManifestChecker, browser: str, system: bool
) -> list[Finding]:
    policy = read_policy(browser, "win32", machine.root, HOST_NAME, machine.registry)
    blocked = _blocked(browser, policy)
    if blocked is not None:
        return [blocked]
    key = registry_key(browser, HOST_NAME)
    hives: tuple[Literal["HKCU", "HKLM"], ...] = ("HKLM",) if system else ("HKCU", "HKLM")
    machine_only = system or not policy.user_level_hosts
    if not policy.user_level_hosts:
        hives = ("HKLM",)
    for hive in hives:
        value = machine.registry.get_default(hive, key)
        if value is not None:
            break
    else:
        why = (
            ""
            if system or policy.user_level_hosts
            else (f" (policy NativeMessagingUserLevelHosts=0 in {policy.source} ignores HKCU)")
        )
        return [
            Finding(
                browser,
                "problem",
                f"registry key {hives[0]}\\{key} is missing{why}",
                _reinstall(browser, machine_only, windows=True),
            )
        ]
    expected = machine.install_dir(system) / f"{HOST_NAME}.json"
    recorded = {e.path for e in load_record(machine.install_dir(system)).files}
    if str(expected) in recorded and Path(value) != expected:
        return [
            Finding(
                browser,
                "problem",
                f"registry key {hive}\\{key} points to {value}, not to the installed {expected}",
                _reinstall(browser, system, windows=True),
            )
        ]
    return checker.check(browser, Path(value), _reinstall(browser, system, windows=True))


def _blocked(browser: str, policy: HostPolicy) -> Finding | None:
    if not policy.blocked:
        return None
    return Finding(
        browser,
        "problem",
        f"enterprise policy blocks {HOST_NAME} (NativeMessagingBlocklist in {policy.source})",
        f"ask your administrator to add {HOST_NAME} to NativeMessagingAllowlist",
    )


def _reinstall(browser: str, system: bool, *, windows: bool = False) -> str:
    if not system:
        return f"{REINSTALL} --browser {browser}"
    elevated = "as administrator: " if windows else "sudo "
    return f"{elevated}{REINSTALL} --system --browser {browser}"


class _ManifestChecker:
    """Checks a manifest file and its executable; starts each executable at most once."""

    def __init__(self, machine: Machine, start_host: bool) -> None:
        self._machine = machine
        self._start_host = start_host
        self._started: dict[Path, Finding | None] = {}

    def check(self, label: str, path: Path, fix: str) -> list[Finding]:
        problem = self._manifest_problem(path)
        if problem is not None:
            return [Finding(label, "problem", f"{path}: {problem}", fix)]
        data = json.loads(path.read_bytes())
        host = Path(data["path"])
        if self._machine.windows and not host.is_absolute():
            host = path.parent / host
        problem = _executable_problem(host, self._machine.windows)
        if problem is not None:
            return [Finding(label, "problem", f"{host}: {problem}", fix)]
        if self._start_host:
            if host not in self._started:
                self._started[host] = _start(host, self._machine)
            started = self._started[host]
            if started is not None:
                return [Finding(label, started.status, started.message, started.fix or fix)]
        return [Finding(label, "ok", f"{path} -> {host}")]

    def _manifest_problem(self, path: Path) -> str | None:
        try:
            data: Any = json.loads(path.read_bytes())
        except OSError as exc:
            return f"cannot be read ({exc.strerror})"
        except ValueError as exc:
            return f"is not valid JSON ({exc})"
        if not isinstance(data, dict):
            return "is not a JSON object"
        if data.get("name") != path.stem:
            return f"its name {data.get('name')!r} is not the file's name {path.stem!r}"
        if data.get("type") != "stdio" or not data.get("description"):
            return "needs a non-empty description and type 'stdio'"
        origins = data.get("allowed_origins")
        ours = extension_origin(PINNED_EXTENSION_ID)
        if not isinstance(origins, list) or ours not in origins:
            return (
                f"allowed_origins lacks {ours} (the browser says 'Access to the specified "
                "native messaging host is forbidden')"
            )
        host = data.get("path")
        if not isinstance(host, str) or not host:
            return "has no path"
        if not self._machine.windows and not Path(host).is_absolute():
            return f"its path {host!r} is relative: Linux and macOS need an absolute path"
        return None


def _executable_problem(host: Path, windows: bool) -> str | None:
    if not host.exists():
        return "the host executable is missing"
    if not host.is_file():
        return "the host path is not a file"
    if windows:
        return None
    if not os.access(host, os.X_OK):
        return "not executable (the browser cannot start it)"
    head = host.read_bytes()[:4096].decode("utf-8", "replace")
    if head.startswith("#!"):
        interpreter = head[2:].splitlines()[0].strip().split(" ")[0]
        if not os.access(interpreter, os.X_OK):
            return f"its #! interpreter {interpreter} is missing (the host exits at once)"
    for line in head.splitlines():
        words = shlex.split(line) if line.startswith("exec ") else []
        if len(words) > 1 and not os.access(words[1], os.X_OK):
            return f"the Python it runs, {words[1]}, is gone (the environment was removed)"
    return None


def _start(host: Path, machine: Machine) -> Finding | None:
    """Start the host as the browser would (this environment, the host's folder as working
    directory), with this ``PANELOT_HOME`` and stdin closed at once; None when it behaved."""
    origin = extension_origin(PINNED_EXTENSION_ID)
    argv = [str(host), origin]
    if machine.windows:
        argv = ["cmd.exe", "/d", "/c", *argv]
    env = {**os.environ, "PANELOT_HOME": str(machine.panelot_home)}
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            cwd=host.parent,
            env=env,
            timeout=START_TIMEOUT_S,
            check=False,
        )
    except OSError as exc:
        return Finding("host", "problem", f"{host} cannot be started: {exc.strerror}", REINSTALL)
    except subprocess.TimeoutExpired:
        return Finding("host", "problem", f"{host} did not exit when its stdin closed", "")
    errors = done.stderr.decode("utf-8", "replace").strip().splitlines()
    last = errors[-1] if errors else "no message"
    if done.returncode == 3:
        return Finding("host", "problem", f"the host refuses {origin}: {last}", REINSTALL)
    if done.returncode != 0:
        return Finding(
            "host",
            "problem",
            f"{host} exited with status {done.returncode} ('Native host has exited'): {last}",
            "see panelot-host logs",
        )
    if done.stdout:
        return Finding(
            "host",
            "problem",
            f"{host} wrote {len(done.stdout)} bytes to stdout that are not messages (the "
            "browser says 'Error when communicating with the native messaging host')",
            "remove whatever prints to stdout at start-up (a shell profile, a wrapper edit)",
        )
    return None
