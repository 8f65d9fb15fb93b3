"""``panelot-host permissions export``: the grant ledger of a profile as JSON on stdout.

Reads the database without the writer lease (WAL lets a reader in while a host serves)
and without migrating it.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys

from panelot_host.engine.policy import grant_from_record
from panelot_host.gatekeeper.grants import export_grant_ledger
from panelot_host.home import panelot_home
from panelot_host.store import grants
from panelot_host.store.profiles import database_path


def run_permissions(options: argparse.Namespace) -> int:
    path = database_path(panelot_home(os.environ), options.profile)
    if not path.exists():  # nothing was ever granted in this profile
        sys.stderr.write(f"panelot-host: no database at {path} yet: no grants\n")
        sys.stdout.buffer.write(export_grant_ledger([]) + b"\n")
        return 0
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        records = grants.everything(conn)
    except sqlite3.Error as exc:
        sys.stderr.write(f"panelot-host: cannot read {path}: {exc}\n")
        return 1
    finally:
        conn.close()
    sys.stdout.buffer.write(export_grant_ledger(grant_from_record(r) for r in records) + b"\n")
    return 0
