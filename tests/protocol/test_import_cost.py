"""The protocol package imports only msgspec and the stdlib (initialize within ~150 ms)."""

from __future__ import annotations

import ast

from tests.support.probe import python_output

_PROBE = """
import sys, time
import msgspec  # with whatever it needs itself
before = set(sys.modules)
t = time.perf_counter()
import panelot_host.protocol
elapsed = time.perf_counter() - t
heavy = sorted(m for m in sys.modules if m.split('.')[0] in
    {'jsonschema', 'anyio', 'httpx', 'pydantic', 'referencing', 'rpds'})
foreign = sorted({m.split('.')[0] for m in set(sys.modules) - before}
    - set(sys.stdlib_module_names) - {'panelot_host'})
print(repr((elapsed, heavy, foreign)))
"""


def test_import_loads_no_heavy_dependency() -> None:
    out = python_output(_PROBE)
    elapsed, heavy, foreign = ast.literal_eval(out)
    assert heavy == []
    assert foreign == []  # nothing beyond msgspec and the stdlib
    assert elapsed < 0.5  # generous for slow CI; ~50 ms locally


def test_error_path_loads_jsonschema_lazily() -> None:
    probe = (
        "import sys\n"
        "from panelot_host.protocol import decode_params\n"
        "decode_params('thread.open', b'{\"threadId\":\"t\"}')\n"
        "assert 'jsonschema' not in sys.modules\n"
        "try:\n    decode_params('thread.open', b'{}')\n"
        "except Exception as e:\n    print(type(e).__name__)\n"
        "assert 'jsonschema' in sys.modules\n"
    )
    out = python_output(probe)
    assert out.strip() == "InvalidParams"


def test_decoders_are_built_on_first_use_and_the_server_can_defer_the_one_pass_path() -> None:
    probe = (
        "from panelot_host.protocol import codec, messages\n"
        'data = b\'{"jsonrpc":"2.0","id":1,"method":"thread.list","params":{}}\'\n'
        "before = type(messages.decode_message(data, build=False)).__name__\n"
        "assert messages._FAST_PATH.decoder is None\n"
        "assert list(codec._HOST_PARAMS._built) == []\n"
        "codec.decode_params('thread.list', b'{}')\n"
        "assert list(codec._HOST_PARAMS._built) == ['thread.list']\n"
        "codec.warm_decoders()\n"
        "assert messages._FAST_PATH.decoder is not None\n"
        "after = type(messages.decode_message(data, build=False)).__name__\n"
        "print(before, after)\n"
    )
    out = python_output(probe)
    assert out.split() == ["Call_thread.list", "Call_thread.list"]
