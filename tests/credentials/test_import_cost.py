"""``panelot_host.credentials`` imports neither keyring nor cryptography until a store is built."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

_PROBE = """
import sys
from pathlib import Path
from panelot_host.credentials import CredentialStore, Secret, fingerprint

def heavy():
    return sorted({m.split('.')[0] for m in sys.modules} & {'keyring', 'cryptography'})

fingerprint(repr(Secret('x')))
imported = heavy()
root = Path(sys.argv[1])
CredentialStore(root / 'home', key_dir=root / 'keys', keyring_backend=None).set('a', 'b')
print(repr((imported, heavy())))
"""


def test_importing_credentials_loads_neither_keyring_nor_cryptography(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(tmp_path)], capture_output=True, check=True, text=True
    ).stdout
    imported, after_file_store = ast.literal_eval(out)
    assert imported == []
    assert after_file_store == ["cryptography"]  # the file store; no keyring asked for
