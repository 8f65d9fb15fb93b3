"""``panelot-host credentials set|list|delete``: API keys without a protocol client.

``set REF`` reads the secret from a hidden prompt at a terminal, else from stdin (never
from the command line, where other users and the shell history would see it), and stores
it with the ``credentials.set`` op: the OS keyring or the encrypted file, the database
keeping only the reference and a fingerprint. ``list`` prints references, fingerprints and
where each is kept (never a secret); it reads the database without the writer lease, as
``permissions export`` does. ``delete REF`` is ``credentials.delete``.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sqlite3
import sys

from panelot_host.cli.host_session import (
    EXIT_FAILED,
    EXIT_OK,
    command_id,
    log_to_file,
    run_with_client,
)
from panelot_host.engine.views import iso
from panelot_host.errors import InvalidParams
from panelot_host.home import panelot_home
from panelot_host.server.config import HostConfig
from panelot_host.server.transport import DirectTransport
from panelot_host.store import settings as settings_store
from panelot_host.store.profiles import database_path


def run_credentials(options: argparse.Namespace) -> int:
    environ = dict(os.environ)
    home = panelot_home(environ)
    if options.action == "list":
        try:
            path = database_path(home, options.profile)
        except InvalidParams as exc:
            sys.stderr.write(f"panelot-host credentials: {exc.message}\n")
            return EXIT_FAILED
        return _list(path)
    log_to_file(home)
    config = HostConfig(home=home, environ=environ)
    if options.action == "set":
        secret = read_secret(options.ref)
        if secret is None:
            sys.stderr.write("panelot-host credentials: no secret given (empty input)\n")
            return EXIT_FAILED

        async def store(client: DirectTransport) -> int:
            params = {"commandId": command_id(), "ref": options.ref, "secret": secret}
            result = await client.send("credentials.set", params)
            print(f"{result['ref']}\t{result['fingerprint']}")
            return EXIT_OK

        return run_with_client(config, options.profile, store, name="credentials set")

    async def delete(client: DirectTransport) -> int:
        params = {"commandId": command_id(), "ref": options.ref}
        result = await client.send("credentials.delete", params)
        if result["fingerprint"] is None:
            sys.stderr.write(f"panelot-host credentials: nothing is stored under {options.ref}\n")
            return EXIT_FAILED
        print(f"{result['ref']}\t{result['fingerprint']}\tdeleted")
        return EXIT_OK

    return run_with_client(config, options.profile, delete, name="credentials delete")


def read_secret(ref: str) -> str | None:
    """The secret: typed at a hidden prompt on a terminal, else all of stdin (one trailing
    line break removed). None when it is empty."""
    if sys.stdin is not None and sys.stdin.isatty():
        value = getpass.getpass(f"secret for {ref} (input hidden): ")
    else:
        value = sys.stdin.read() if sys.stdin is not None else ""
        value = value.removesuffix("\n").removesuffix("\r")
    return value or None


def _list(path: os.PathLike[str]) -> int:
    if not os.path.exists(path):
        return EXIT_OK  # nothing stored yet
    conn = sqlite3.connect(f"file:{os.fspath(path)}?mode=ro", uri=True)
    try:
        records = settings_store.all_credentials(conn)
    except sqlite3.Error as exc:
        sys.stderr.write(f"panelot-host credentials: cannot read {os.fspath(path)}: {exc}\n")
        return EXIT_FAILED
    finally:
        conn.close()
    for record in records:
        print(f"{record.ref}\t{record.fingerprint}\t{record.backend}\t{iso(record.updated_at)}")
    return EXIT_OK
