"""Reading the provider configuration costs no HTTP stack: httpx comes with a provider."""

from __future__ import annotations

import ast
import subprocess
import sys

_PROBE = """
import sys
from panelot_host.providers.config import build_provider, load_provider_config, model_info

def heavy():
    return sorted({m.split('.')[0] for m in sys.modules} & {'httpx', 'httpcore', 'keyring'})

env = {'OPENAI_BASE_URL': 'http://127.0.0.1:11434/v1', 'PANELOT_MODEL': 'llama3.1'}
config = load_provider_config(env, {'modelCapabilities': ['tools']})
model_info(config)
read = heavy()
build_provider(config, None)
print(repr((read, heavy())))
"""


def test_reading_the_configuration_imports_no_http_stack_until_a_provider_is_built() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, check=True, text=True
    ).stdout
    after_reading, after_building = ast.literal_eval(out)
    assert after_reading == []
    assert after_building == ["httpcore", "httpx"]
