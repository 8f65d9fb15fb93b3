"""Loopback is decided on the literal host (issue 25, finding 1): ``127.attacker.test`` is
not this machine, so plain http is refused there and a key stored with no origin (which may
go to this machine) is not sent there."""

from __future__ import annotations

from pathlib import Path

import pytest

from panelot_host.credentials import CredentialStore
from panelot_host.errors import ProviderConfigError
from panelot_host.providers.config import load_provider_config, resolve_api_key
from panelot_host.providers.endpoints import plain_http_problem
from panelot_host.providers.loopback import is_loopback_host, is_loopback_url

KEY = "sk-stored-with-no-origin-0123456789"

THIS_MACHINE = [
    "127.0.0.1",
    "127.1.2.3",
    "127.255.255.254",
    "localhost",
    "LOCALHOST",
    "LocalHost",
    "[::1]",
    "[0:0:0:0:0:0:0:1]",
    "[::ffff:127.0.0.1]",  # IPv4-mapped loopback
    "[::ffff:7f00:1]",
]
# Names whose DNS someone else controls, and spellings ``ipaddress`` does not read as an
# address (a resolver might map them to 127.0.0.1; refusing them is safe).
NOT_THIS_MACHINE = [
    "127.attacker.test",
    "127.0.0.1.nip.io",
    "127.0.0.1.attacker.test",
    "localhost.attacker.test",
    "localhost.",
    "app.localhost",  # Chrome pins *.localhost; httpx asks the OS resolver
    "0x7f.0.0.1",
    "0177.0.0.1",
    "127.1",
    "2130706433",
    "128.0.0.1",
    "0.0.0.0",
    "[::]",
    "[::ffff:10.0.0.1]",
    "[fe80::1]",
    "192.168.1.20",
    "attacker.test",
]


@pytest.mark.parametrize("host", THIS_MACHINE)
def test_this_machine_is_loopback_and_may_have_plain_http(host: str) -> None:
    url = f"http://{host}:11434/v1"
    assert is_loopback_url(url)
    assert plain_http_problem(url) is None


@pytest.mark.parametrize("host", NOT_THIS_MACHINE)
def test_a_name_that_only_looks_local_is_not_loopback_and_needs_https(host: str) -> None:
    url = f"http://{host}:11434/v1"
    assert not is_loopback_url(url)
    assert plain_http_problem(url) is not None
    with pytest.raises(ProviderConfigError, match="plain http to another machine"):
        load_provider_config({"PANELOT_PROVIDER": "openai"}, {"baseUrl": url, "model": "m"})


def test_the_host_predicate_takes_brackets_or_none() -> None:
    assert is_loopback_host("::1") and is_loopback_host("[::1]")
    assert not is_loopback_host(None) and not is_loopback_host("")
    assert not is_loopback_url("http://[::1/v1")  # does not parse


@pytest.mark.parametrize(
    "base_url",
    [
        "https://127.attacker.test/v1",
        "https://127.0.0.1.nip.io/v1",
        "https://localhost.attacker.test/v1",
    ],
)
def test_a_key_stored_with_no_origin_is_not_sent_to_a_name_that_looks_local(
    tmp_path: Path, base_url: str
) -> None:
    store = CredentialStore(tmp_path, key_dir=tmp_path.parent / "keys", keyring_backend=None)
    store.set("k", KEY)
    env = {"PANELOT_PROVIDER": "openai"}
    config = load_provider_config(env, {"baseUrl": base_url, "apiKeyRef": "k", "model": "m"})
    no_origin: dict[str, str] = {}
    with pytest.raises(ProviderConfigError, match="entered with no provider origin"):
        resolve_api_key(config, store, no_origin.get, env)
    local = load_provider_config(
        env, {"baseUrl": "http://127.0.0.1:8080/v1", "apiKeyRef": "k", "model": "m"}
    )
    assert resolve_api_key(local, store, no_origin.get, env) is not None
