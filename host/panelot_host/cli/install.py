"""``panelot-host install`` and ``uninstall``: argument parsing and the report.

The work is ``panelot_host.install`` (``plan_install``/``apply_plan``, ``uninstall``); this
module turns options into a request and each change into one line. Imports happen when a
command runs (the parser is built on every start of the host).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from panelot_host.install.machine import Machine
    from panelot_host.install.plan import Change

BROWSER_NAMES = ("chrome", "chromium", "edge", "brave", "vivaldi")


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``install``, ``uninstall``, ``doctor`` and ``logs`` to the ``panelot-host`` parser."""
    install = sub.add_parser(
        "install", help="make the host startable by your browsers (native messaging)"
    )
    install.add_argument(
        "--browser",
        action="append",
        choices=BROWSER_NAMES,
        help="install for this browser (repeatable; default: every one found)",
    )
    install.add_argument(
        "--system", action="store_true", help="for all users (as root / administrator)"
    )
    install.add_argument(
        "--user-data-dir", type=Path, metavar="DIR", help="install into one browser profile"
    )
    install.add_argument(
        "--extension-id",
        action="append",
        default=[],
        metavar="ID",
        help="also allow this extension (e.g. a store build); repeatable",
    )
    install.add_argument("--dry-run", action="store_true", help="say what would change only")
    install.add_argument(
        "--force",
        action="store_true",
        help="replace a com.panelot.host manifest (or registry key) install did not write",
    )
    install.add_argument(
        "--doctor", action="store_true", help="then run 'panelot-host doctor' on what it installed"
    )
    install.set_defaults(command="install", run=run_install)

    uninstall = sub.add_parser("uninstall", help="remove exactly what install wrote")
    uninstall.add_argument("--system", action="store_true", help="the system-wide install")
    uninstall.add_argument(
        "--purge", action="store_true", help="also delete your Panelot data (PANELOT_HOME)"
    )
    uninstall.add_argument("--yes", action="store_true", help="confirm --purge without asking")
    uninstall.add_argument("--dry-run", action="store_true", help="say what would be removed")
    uninstall.set_defaults(command="uninstall", run=run_uninstall)

    doctor = sub.add_parser("doctor", help="check the install, the data and the model provider")
    doctor.add_argument("--browser", action="append", choices=BROWSER_NAMES)
    doctor.add_argument("--user-data-dir", type=Path, metavar="DIR", help="check this profile")
    doctor.add_argument("--system", action="store_true", help="check the system-wide install")
    doctor.add_argument("--json", action="store_true", help="machine-readable output")
    doctor.add_argument("--offline", action="store_true", help="skip the provider request")
    doctor.set_defaults(command="doctor", run=_run_doctor)

    logs = sub.add_parser("logs", help="show the host's recent log")
    logs.add_argument("--follow", "-f", action="store_true", help="keep printing new lines")
    logs.add_argument("--lines", "-n", type=int, default=50, help="how many lines (default 50)")
    logs.set_defaults(command="logs", run=_run_logs)


def run_install(
    options: argparse.Namespace,
    *,
    machine: Machine | None = None,
    out: TextIO = sys.stdout,
    environ: Mapping[str, str] = os.environ,
) -> int:
    # lazy: the parser imports this module at every start; the installer loads when it runs
    from panelot_host.install.machine import Machine
    from panelot_host.install.plan import (
        FORCE_HINT,
        InstallError,
        InstallRequest,
        apply_plan,
        plan_install,
    )
    from panelot_host.install.record import RecordError, load_record, save_record

    machine = machine or Machine.current(environ)
    request = InstallRequest(
        browsers=tuple(options.browser or ()),
        system=options.system,
        user_data_dir=options.user_data_dir,
        extension_ids=tuple(options.extension_id),
    )
    try:
        plan = plan_install(machine, request)
        record = load_record(plan.install_dir)
        changes, written = apply_plan(
            machine, plan, previous=record, force=options.force, dry_run=options.dry_run
        )
        merged = record.merged(written)
        if not options.dry_run and merged != record:
            save_record(plan.install_dir, merged)
    except (InstallError, RecordError, OSError) as exc:
        for line in str(exc).splitlines():
            print(f"panelot-host install: {line}", file=sys.stderr)
        return 1
    _report(changes, out, dry_run=options.dry_run)
    if any(change.status == "refused" for change in changes):  # a dry run: say what to do
        print(f"panelot-host install: {FORCE_HINT}", file=sys.stderr)
        return 1
    if not options.dry_run and options.user_data_dir is None:
        _offer_extension(machine.panelot_home, out)
    if options.doctor and not options.dry_run:
        # lazy: doctor's checks (httpx) load only when the install asks for them
        from panelot_host.cli.doctor import run_doctor

        print("== panelot-host doctor", file=out)
        checks = argparse.Namespace(
            browser=list(plan.browsers),
            user_data_dir=options.user_data_dir,
            system=options.system,
            json=False,
            offline=False,
        )
        return run_doctor(checks, machine=machine, out=out, environ=environ)
    return 0


def _offer_extension(home: Path, out: TextIO) -> None:
    """Refresh the extension's copy under ``home`` and say how to load it."""
    # lazy: the copy's modules load only when an install runs
    from panelot_host.install.extension import bundled_extension, copy_extension
    from panelot_host.install.extension_files import ExtensionIncomplete

    try:
        copied = copy_extension(bundled_extension(), home)
    except (ExtensionIncomplete, OSError) as exc:
        print(f"extension    not copied: {exc}", file=out)
        return
    status = "updated" if copied.refreshed else "unchanged"
    print(f"{status:<12} extension {copied.stamp.version}: {copied.path}", file=out)
    print(
        "next: in the browser's extensions page turn on Developer mode, 'Load unpacked' "
        f"and pick {copied.path} (if it is loaded already, press its reload button)",
        file=out,
    )


def run_uninstall(
    options: argparse.Namespace,
    *,
    machine: Machine | None = None,
    out: TextIO = sys.stdout,
    environ: Mapping[str, str] = os.environ,
    ask: Callable[[str], str] = input,
) -> int:
    # lazy: the parser imports this module at every start; the installer loads when it runs
    from panelot_host.install.machine import Machine
    from panelot_host.install.record import RecordError
    from panelot_host.install.uninstall import uninstall

    machine = machine or Machine.current(environ)
    try:
        changes = uninstall(machine, system=options.system, dry_run=options.dry_run)
    except (RecordError, OSError) as exc:
        print(f"panelot-host uninstall: {exc}", file=sys.stderr)
        return 1
    if not changes:
        print("nothing to remove: no install is recorded here", file=out)
    _report(changes, out, dry_run=options.dry_run)
    if options.purge:
        return _purge(machine.panelot_home, options, out, ask)
    if machine.panelot_home.exists():
        print(f"kept your data in {machine.panelot_home} (--purge deletes it)", file=out)
    return 0


def _purge(home: Path, options: argparse.Namespace, out: TextIO, ask: Callable[[str], str]) -> int:
    if not home.exists():
        print(f"no data to delete: {home} does not exist", file=out)
        return 0
    if options.dry_run:
        print(f"would delete {home} and everything in it", file=out)
        return 0
    if not options.yes:
        try:
            answer = ask(f"Delete {home}: every thread, setting and log of Panelot? Type 'yes': ")
        except EOFError:
            answer = ""
        if answer.strip().lower() != "yes":
            print(f"kept {home}: --purge was not confirmed", file=out)
            return 1
    shutil.rmtree(home)
    print(f"deleted {home}", file=out)
    return 0


def _report(changes: list[Change], out: TextIO, *, dry_run: bool) -> None:
    prefix = "would be " if dry_run else ""
    for change in changes:
        acted = change.status in ("created", "updated", "removed")
        status = prefix + change.status if acted else change.status
        note = f" ({change.note})" if change.note else ""
        print(f"{status:<12} {change.what}: {change.where}{note}", file=out)
    if changes and all(c.status == "unchanged" for c in changes):
        print("already installed: nothing changed", file=out)


def _run_doctor(options: argparse.Namespace) -> int:
    # lazy: a command's module loads only when it runs (the parser imports this one)
    from panelot_host.cli.doctor import run_doctor

    return run_doctor(options)


def _run_logs(options: argparse.Namespace) -> int:
    # lazy: a command's module loads only when it runs (the parser imports this one)
    from panelot_host.cli.show_logs import run_logs

    return run_logs(options)
