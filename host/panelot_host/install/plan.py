"""``panelot-host install`` as data: what to write where, then writing it.

``plan_install`` turns a request into ``FileWrite``s and ``KeyWrite``s (nothing touched);
``apply_plan`` compares each with what is there, writes only what differs (unless it is a
dry run) and returns one ``Change`` per item plus the record of what it wrote. Running it
twice changes nothing the second time.

Two guarantees (issue 25): a manifest or registry key that is not install's own
(``ownership``) is replaced only with ``force``, else nothing at all is written; and
folders are made only for browsers found on the machine, owner-only (0700, as Chromium
makes its own user-data folder) for a per-user install, 0755 for a system-wide one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import msgspec

from panelot_host.install.locations import BROWSERS, native_hosts_dir, registry_key
from panelot_host.install.machine import Machine
from panelot_host.install.manifest import (
    HOST_NAME,
    PINNED_EXTENSION_ID,
    build_manifest,
    extension_origin,
    manifest_bytes,
)
from panelot_host.install.ownership import describe, key_is_ours, manifest_is_ours
from panelot_host.install.record import FileEntry, InstallRecord, KeyEntry, sha256
from panelot_host.install.registry import Hive
from panelot_host.install.wrapper import POSIX_NAME, WINDOWS_NAME, wrapper_text


class InstallError(Exception):
    """The install cannot be done as asked (the message says why and what to do)."""


FORCE_HINT = (
    "nothing was changed: move it aside, or add --force to replace it (the file or key "
    "replaced is not kept; uninstall then removes Panelot's and leaves nothing there)"
)


class ForeignError(InstallError):
    """A manifest or registry key where install writes is not its own (``refused``)."""

    def __init__(self, refused: Sequence[Change]) -> None:
        self.refused = list(refused)
        lines = [
            f"refusing to replace {c.where} ({c.what}): install did not write it ({c.note})"
            for c in refused
        ]
        super().__init__("\n".join([*lines, FORCE_HINT]))


class InstallRequest(msgspec.Struct, frozen=True):
    browsers: tuple[str, ...] = ()  # empty: every browser found on the machine
    system: bool = False
    user_data_dir: Path | None = None
    extension_ids: tuple[str, ...] = ()  # besides the pinned one


class FileWrite(msgspec.Struct, frozen=True):
    path: Path
    content: bytes
    mode: int
    kind: str  # "wrapper" | "manifest"
    browser: str | None = None


class KeyWrite(msgspec.Struct, frozen=True):
    hive: Hive
    key: str
    value: str
    browser: str


class Plan(msgspec.Struct, frozen=True):
    install_dir: Path
    browsers: tuple[str, ...]
    files: tuple[FileWrite, ...]
    keys: tuple[KeyWrite, ...]
    dir_mode: int  # of each folder it creates: 0o700 per user, 0o755 system-wide

    @property
    def wrapper(self) -> Path:
        return next(f.path for f in self.files if f.kind == "wrapper")


class Change(msgspec.Struct, frozen=True):
    status: str  # "created" | "updated" | "unchanged" | "refused"
    what: str  # "wrapper", "manifest (chromium)", "registry key (edge)"
    where: str
    note: str = ""  # for "refused": what the file or key there points at


def plan_install(machine: Machine, request: InstallRequest) -> Plan:
    """What ``request`` installs on ``machine``.

    Raises:
        InstallError: an unknown browser, no browser found, ``--system`` without root or
            administrator rights, or a malformed extension id.
    """
    _check_request(machine, request)
    origins = _origins(request.extension_ids)
    install_dir = machine.install_dir(request.system)
    wrapper_path = install_dir / (WINDOWS_NAME if machine.windows else POSIX_NAME)
    try:
        text = wrapper_text(
            machine.python,
            windows=machine.windows,
            allowed_origins=origins,
            panelot_home=_pinned_home(machine, request),
        )
    except ValueError as exc:
        raise InstallError(f"cannot write the wrapper: {exc}") from exc
    wrapper = FileWrite(
        path=wrapper_path,
        content=text.encode(),
        mode=0o755 if request.system else 0o700,
        kind="wrapper",
    )
    manifest = manifest_bytes(build_manifest(wrapper_path, origins, windows=machine.windows))
    dir_mode = 0o755 if request.system else 0o700
    if request.user_data_dir is not None:
        target = native_hosts_dir(request.user_data_dir.absolute()) / f"{HOST_NAME}.json"
        files = (wrapper, _manifest_write(target, manifest))
        return Plan(install_dir, (), files, (), dir_mode)
    browsers = _browsers(machine, request)
    if machine.windows:
        target = install_dir / f"{HOST_NAME}.json"
        keys = _registry_writes(machine, request.system, browsers, str(target))
        files = (wrapper, _manifest_write(target, manifest))
        return Plan(install_dir, browsers, files, keys, dir_mode)
    writes = [wrapper]
    for browser in browsers:
        target = machine.manifest_dir(browser, request.system) / f"{HOST_NAME}.json"
        writes.append(_manifest_write(target, manifest, browser))
    return Plan(install_dir, browsers, tuple(writes), (), dir_mode)


def _pinned_home(machine: Machine, request: InstallRequest) -> Path | None:
    """The data folder the wrapper sets: an explicit ``PANELOT_HOME`` of a per-user install
    (a system-wide one serves every user, each with their own)."""
    if machine.home_is_explicit and not request.system:
        return machine.panelot_home.absolute()
    return None


def _check_request(machine: Machine, request: InstallRequest) -> None:
    unknown = [b for b in request.browsers if b not in BROWSERS]
    if unknown:
        raise InstallError(
            f"unknown browser {', '.join(unknown)}: choose from {', '.join(BROWSERS)}"
        )
    if request.system and not machine.is_admin:
        who = "an administrator" if machine.windows else "root (sudo)"
        raise InstallError(f"--system writes where only {who} can: run it as {who}")
    if request.system and request.user_data_dir is not None:
        raise InstallError("--user-data-dir installs into one profile: it excludes --system")


def _origins(extension_ids: Sequence[str]) -> list[str]:
    try:
        ids = dict.fromkeys([PINNED_EXTENSION_ID, *extension_ids])
        return [extension_origin(extension_id) for extension_id in ids]
    except ValueError as exc:
        raise InstallError(f"--extension-id: {exc}") from exc


def _browsers(machine: Machine, request: InstallRequest) -> tuple[str, ...]:
    """The browsers to register with: those named, else those found. On Linux and macOS a
    named browser must be found too: its manifest folder is inside its user-data folder,
    which is never made for a browser that is not there (on Windows only a registry key
    is written, and a browser that has not run yet cannot be told from an absent one)."""
    if request.browsers:
        named = tuple(dict.fromkeys(request.browsers))
        missing = [b for b in named if not machine.windows and not machine.present(b)]
        if missing:
            raise InstallError(
                "\n".join(
                    f"--browser {b}: not found on this machine ({machine.looked_for(b)}): "
                    "install it, then run install again"
                    for b in missing
                )
            )
        return named
    found = machine.present_browsers()
    if not found:
        raise InstallError(
            f"no supported browser found ({', '.join(BROWSERS)}): install one "
            "(Debian: apt-get install chromium) or name it with --browser"
        )
    return tuple(found)


def _manifest_write(path: Path, content: bytes, browser: str | None = None) -> FileWrite:
    return FileWrite(path=path, content=content, mode=0o644, kind="manifest", browser=browser)


def _registry_writes(
    machine: Machine, system: bool, browsers: Sequence[str], manifest: str
) -> tuple[KeyWrite, ...]:
    keys: dict[str, KeyWrite] = {}
    for browser in browsers:
        key = registry_key(browser, HOST_NAME)
        keys.setdefault(key.lower(), KeyWrite(machine.hive(system), key, manifest, browser))
    return tuple(keys.values())


def apply_plan(
    machine: Machine,
    plan: Plan,
    *,
    previous: InstallRecord | None = None,
    force: bool = False,
    dry_run: bool = False,
) -> tuple[list[Change], InstallRecord]:
    """Write what differs (nothing when ``dry_run``); return the changes, in plan order,
    and the record of every file and key the plan owns (and folders it created).

    A manifest or key there that is not install's own (by ``previous``, the install
    record, and ``ownership``) is a ``refused`` change unless ``force``.

    Raises:
        ForeignError: something was refused (and it is not a dry run): nothing is written.
        OSError: a write is refused (``RegistryError`` included).
    """
    previous = previous if previous is not None else InstallRecord()
    file_changes = _file_changes(plan, previous, force, machine.windows)
    key_changes = _key_changes(machine, plan, previous, force)
    changes = file_changes + key_changes
    refused = [c for c in changes if c.status == "refused"]
    if refused and not dry_run:
        raise ForeignError(refused)
    created_dirs: list[str] = []
    for item, change in zip(plan.files, file_changes, strict=True):
        if change.status != "unchanged" and not dry_run:
            made = _make_parents(item.path.parent, plan.dir_mode)
            created_dirs.extend(str(d) for d in made)
            _write_file(item)
    for key, change in zip(plan.keys, key_changes, strict=True):
        if change.status != "unchanged" and not dry_run:
            machine.registry.set_default(key.hive, key.key, key.value)
    record = InstallRecord(
        files=[FileEntry(str(f.path), sha256(f.content), f.kind) for f in plan.files],
        keys=[KeyEntry(k.hive, k.key, k.value) for k in plan.keys],
        dirs=created_dirs,
    )
    return changes, record


def _file_changes(plan: Plan, previous: InstallRecord, force: bool, windows: bool) -> list[Change]:
    recorded = {entry.path: entry.sha256 for entry in previous.files}
    changes = []
    for item in plan.files:
        label = item.kind if item.browser is None else f"{item.kind} ({item.browser})"
        try:
            current = item.path.read_bytes()
            mode = item.path.stat().st_mode & 0o777
        except FileNotFoundError:
            changes.append(Change("created", label, str(item.path)))
            continue
        if current == item.content and (os.name == "nt" or mode == item.mode):
            changes.append(Change("unchanged", label, str(item.path)))
            continue
        # the install folder is install's own; a browser's manifest folder is not
        elsewhere = item.kind == "manifest" and item.path.parent != plan.install_dir
        if (
            elsewhere
            and not force
            and not manifest_is_ours(
                current,
                ours=item.content,
                wrapper=str(plan.wrapper),
                recorded=recorded.get(str(item.path)),
                windows=windows,
            )
        ):
            changes.append(Change("refused", label, str(item.path), describe(current)))
        else:
            changes.append(Change("updated", label, str(item.path)))
    return changes


def _key_changes(
    machine: Machine, plan: Plan, previous: InstallRecord, force: bool
) -> list[Change]:
    recorded = {(entry.hive, entry.key.lower()): entry.value for entry in previous.keys}
    changes = []
    for key in plan.keys:
        label, where = f"registry key ({key.browser})", f"{key.hive}\\{key.key}"
        current = machine.registry.get_default(key.hive, key.key)
        if not current:
            changes.append(Change("created", label, where))
        elif current == key.value:
            changes.append(Change("unchanged", label, where))
        elif force or key_is_ours(
            current, ours=key.value, recorded=recorded.get((key.hive, key.key.lower()))
        ):
            changes.append(Change("updated", label, where))
        else:
            changes.append(Change("refused", label, where, f"it names {current}"))
    return changes


def _make_parents(folder: Path, mode: int) -> list[Path]:
    """Create ``folder`` and missing parents with ``mode`` (whatever the umask); return
    those created, outermost first."""
    missing = [p for p in [folder, *folder.parents] if not p.exists()]
    missing.reverse()
    for path in missing:
        path.mkdir(mode=mode, exist_ok=True)
        os.chmod(path, mode)
    return missing


def _write_file(item: FileWrite) -> None:
    tmp = item.path.with_name(f".{item.path.name}.tmp")
    tmp.write_bytes(item.content)
    os.chmod(tmp, item.mode)
    os.replace(tmp, item.path)
