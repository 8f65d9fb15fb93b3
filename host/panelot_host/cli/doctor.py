"""``panelot-host doctor``: why the browser cannot reach the host, and everything else a
working side panel needs, one line per finding with its fix; ``--json`` for tools.

Exit status 0 only when there is no problem (notes, such as no model configured yet, do
not fail it).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, TextIO

import msgspec

from panelot_host.cli.doctor_data import (
    check_credentials,
    check_databases,
    check_permissions,
    check_provider,
)
from panelot_host.cli.doctor_schema import check_schemas
from panelot_host.cli.doctor_versions import check_versions
from panelot_host.install.diagnose import diagnose_install
from panelot_host.install.extension import diagnose_copy
from panelot_host.install.locations import BROWSERS
from panelot_host.install.machine import Machine
from panelot_host.install.record import RecordError, load_record

if TYPE_CHECKING:
    from panelot_host.install.diagnose import Finding
    from panelot_host.install.machine import Machine

MARKS = {"ok": "ok     ", "note": "note   ", "problem": "PROBLEM"}


def collect(
    options: argparse.Namespace, machine: Machine, environ: Mapping[str, str]
) -> list[Finding]:
    browsers = list(options.browser or [])
    if not browsers and options.user_data_dir is None:
        found = [*machine.present_browsers(), *_recorded_browsers(machine, options.system)]
        browsers = list(dict.fromkeys(found))
    findings = check_versions()
    findings += diagnose_install(
        machine, browsers, system=options.system, user_data_dir=options.user_data_dir
    )
    home = machine.panelot_home
    if options.user_data_dir is None:  # a profile's install copies no extension
        findings += diagnose_copy(home)
    findings += check_databases(home)
    findings += check_schemas(home)
    findings += check_permissions(home)
    credential_findings, store = check_credentials(home)
    findings += credential_findings
    if not options.offline:
        findings += check_provider(environ, home, store)
    return findings


def _recorded_browsers(machine: Machine, system: bool) -> list[str]:
    """Browsers an install was made for (found on the machine or not)."""
    paths = {entry.path for entry in load_record(machine.install_dir(system)).files}
    return [
        browser
        for browser in BROWSERS
        if not machine.windows
        and str(machine.manifest_dir(browser, system) / "com.panelot.host.json") in paths
    ]


def render(findings: list[Finding], out: TextIO) -> None:
    for finding in findings:
        fix = f" -- fix: {finding.fix}" if finding.status != "ok" and finding.fix else ""
        print(f"{MARKS[finding.status]} {finding.check}: {finding.message}{fix}", file=out)
    problems = sum(f.status == "problem" for f in findings)
    print("all is well" if not problems else f"{problems} problem(s) found", file=out)


def run_doctor(
    options: argparse.Namespace,
    *,
    machine: Machine | None = None,
    out: TextIO = sys.stdout,
    environ: Mapping[str, str] = os.environ,
) -> int:
    machine = machine or Machine.current(environ)
    try:
        findings = collect(options, machine, environ)
    except RecordError as exc:
        print(f"panelot-host doctor: {exc}", file=sys.stderr)
        return 1
    ok = not any(f.status == "problem" for f in findings)
    if options.json:
        report = {"ok": ok, "findings": [msgspec.to_builtins(f) for f in findings]}
        out.write(msgspec.json.encode(report).decode() + "\n")
    else:
        render(findings, out)
    return 0 if ok else 1
