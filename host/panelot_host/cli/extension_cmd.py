"""``panelot-host extension path`` and ``panelot-host extension pack``.

``path`` refreshes the copy of the extension under ``PANELOT_HOME`` (``install.extension``)
and prints its folder, for Chrome's "Load unpacked". ``pack`` writes the zip for the Chrome
Web Store and, with ``--key``, a signed CRX with its ``update.xml``
(``install.extension_pack``). The work is imported when a command runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``extension path`` and ``extension pack`` to the ``panelot-host`` parser."""
    extension = sub.add_parser(
        "extension",
        help="the Chrome extension this host carries: its folder, or packed",
        description="path: copy the extension this host carries to a folder under your "
        "Panelot data that stays the same across upgrades, and print it (pick it in "
        "chrome://extensions with Developer mode's 'Load unpacked'). pack: write "
        "panelot-VERSION.zip for the Chrome Web Store and, with --key, a signed .crx "
        "(and, with --update-url, update.xml) for ExtensionInstallForcelist.",
    )
    extension.set_defaults(command="extension", run=_usage(extension))
    actions = extension.add_subparsers(title="actions")
    path = actions.add_parser("path", help="refresh the extension's folder and print it")
    path.set_defaults(run=run_path)
    pack = actions.add_parser("pack", help="write the store zip (and a signed .crx)")
    pack.add_argument(
        "--out", type=Path, default=Path("."), metavar="DIR", help="where (default: here)"
    )
    pack.add_argument(
        "--key",
        type=Path,
        metavar="PEM",
        help="sign a .crx with this RSA key (created when missing; keep it: it is the ID)",
    )
    pack.add_argument(
        "--update-url",
        metavar="URL",
        help="the folder URL the .crx and update.xml will be served from",
    )
    pack.set_defaults(run=run_pack)


def _usage(parser: argparse.ArgumentParser) -> object:
    def show(_: argparse.Namespace) -> int:
        parser.print_help(sys.stderr)
        return 2

    return show


def run_path(
    _: argparse.Namespace, *, out: TextIO = sys.stdout, environ: Mapping[str, str] = os.environ
) -> int:
    # lazy: a command's work loads only when it runs
    from panelot_host.home import panelot_home
    from panelot_host.install.extension import bundled_extension, copy_extension
    from panelot_host.install.extension_files import ExtensionIncomplete

    try:
        copied = copy_extension(bundled_extension(), panelot_home(environ))
    except (ExtensionIncomplete, OSError) as exc:
        print(f"panelot-host extension path: {exc}", file=sys.stderr)
        return 1
    if copied.refreshed:
        print(
            f"updated the extension {copied.stamp.version} in {copied.path}: if the browser "
            "already loaded it, press its reload button in chrome://extensions",
            file=sys.stderr,
        )
    print(copied.path, file=out)
    return 0


def run_pack(options: argparse.Namespace, *, out: TextIO = sys.stdout) -> int:
    # lazy: a command's work (cryptography) loads only when it runs
    from panelot_host.install.extension import bundled_extension
    from panelot_host.install.extension_files import ExtensionIncomplete
    from panelot_host.install.extension_pack import PackError, pack_extension

    try:
        packed = pack_extension(
            bundled_extension(),
            options.out,
            signing_key=options.key,
            update_base_url=options.update_url,
        )
    except (ExtensionIncomplete, PackError, OSError) as exc:
        print(f"panelot-host extension pack: {exc}", file=sys.stderr)
        return 1
    print(f"store zip    {packed.store_zip} (upload it; the store assigns the ID)", file=out)
    if packed.crx is not None:
        print(f"signed crx   {packed.crx} (extension ID {packed.crx_id})", file=out)
        print(f"host         panelot-host install --extension-id {packed.crx_id}", file=out)
    if packed.update_xml is not None:
        print(
            f"update.xml   {packed.update_xml} (policy ExtensionInstallForcelist: "
            f"{packed.crx_id};{options.update_url.rstrip('/')}/update.xml)",
            file=out,
        )
    return 0
