"""Extension ops about the model provider: is one usable now (``provider.status``), which
model servers run on this computer (``provider.discover``), and does the saved
configuration work (``provider.test``: real requests, the same check as
``panelot-host doctor``). None changes stored state."""

from __future__ import annotations

from typing import Literal

from panelot_host.protocol.ops._base import Params, Result

TestCause = Literal[
    "not_configured",
    "key_missing",
    "key_not_sent",
    "bad_key",
    "wrong_url",
    "not_running",
    "unknown_model",
    "no_tools",
    "http_error",
]


class ProviderStatusParams(Params, kw_only=True):
    pass


class ProviderStatusResult(Result, kw_only=True):
    """Whether a turn could start now (no request is made): the configuration loads and
    the key it needs resolves. ``reason``: why not, in a sentence for a person."""

    ready: bool
    provider: Literal["anthropic", "openai", "scripted"] | None
    model: str | None
    base_url: str | None
    source: Literal["settings", "environment"] | None
    reason: str | None


class ProviderDiscoverParams(Params, kw_only=True):
    pass


class LocalModelServer(Result, kw_only=True):
    """A server on this computer that answers an OpenAI model list."""

    base_url: str
    port: int
    name: str | None
    """Ollama (11434), LM Studio (1234), llama.cpp (8080), vLLM (8000); None elsewhere."""
    models: list[str]


class ProviderDiscoverResult(Result, kw_only=True):
    servers: list[LocalModelServer]


class ProviderTestParams(Params, kw_only=True):
    pass


class ProviderTestResult(Result, kw_only=True):
    """The saved configuration tried with real requests. ``message``: one sentence for a
    person; ``detail``: the provider's own words (never a secret); ``cause`` when not ok."""

    ok: bool
    provider: str | None
    model: str | None
    url: str | None
    latency_ms: int | None
    cause: TestCause | None
    message: str
    detail: str | None
    models: list[str]
