"""Configuration ops: settings, credentials and permissions (grants)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import UNSET, Meta, UnsetType

from panelot_host.protocol.common import CommandId, CostBudgetUsd, Id, TokenBudget
from panelot_host.protocol.entities import Grant
from panelot_host.protocol.ops._base import Params, Result

Provider = Literal["anthropic", "openai"]

CredentialName = Annotated[
    str,
    Meta(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$",
        description="A credential reference: the name a secret is stored under",
    ),
]

ModelName = Annotated[str, Meta(min_length=1, max_length=200)]

DEFAULT_MAX_PARALLEL_TURNS = 3
"""``maxParallelTurns`` when the setting is not stored."""

MaxParallelTurns = Annotated[
    int,
    Meta(ge=1, le=16, description="Turns (of different threads) that may run at the same time"),
]


class CredentialRef(Params, kw_only=True):
    """``{"credentialRef": name}``: stands for the secret stored under that name."""

    credential_ref: CredentialName


SecretOrRef = str | CredentialRef
"""A literal value or a credential reference (MCP ``env`` and ``headers`` values)."""


class ModelCapabilities(Params, omit_defaults=True, kw_only=True):
    """Override of the known-models data; an absent field keeps the data file's value."""

    tool_use: bool | None = None
    vision: bool | None = None


class ModelLimit(Params, omit_defaults=True, kw_only=True):
    """Extension: a model's limits, overriding the known-models data (an absent field keeps
    the data file's value; unknown models default to a 32,000-token window)."""

    context_window: Annotated[int, Meta(ge=1_024)] | None = None
    """Tokens the model reads and writes in one call."""
    max_output_tokens: Annotated[int, Meta(ge=1)] | None = None
    """Tokens one call may write."""


class McpServer(Params, omit_defaults=True, kw_only=True):
    """An entry of ``mcpServers``: ``{command, args?, env?}`` (stdio) or ``{url, headers?}``
    (HTTP), as in the ``mcp.json`` other MCP clients keep. ``type`` is an extension."""

    command: Annotated[str, Meta(min_length=1)] | None = None
    args: list[str] = []
    env: dict[str, SecretOrRef] = {}
    url: Annotated[str, Meta(pattern=r"^https?://")] | None = None
    headers: dict[str, SecretOrRef] = {}
    type: Literal["stdio", "sse", "http", "streamable-http"] | None = None
    cwd: str | None = None
    """Extension: the working directory of a ``command`` server."""
    disabled: bool = False
    """Extension: keep the entry but do not start the server."""
    allow_sampling: bool = False
    """Extension: let this server ask for model samples (declined otherwise)."""
    timeout: Annotated[float, Meta(gt=0)] | None = None
    """Extension: seconds a call may go without progress (default 120)."""
    max_timeout: Annotated[float, Meta(gt=0)] | None = None
    """Extension: hard limit of one call in seconds (default 1800)."""

    def __post_init__(self) -> None:
        if (self.command is None) == (self.url is None):
            raise ValueError("an MCP server has either `command` or `url`")
        if self.command is not None and self.headers:
            raise ValueError("`headers` belongs to a `url` server")
        if self.url is not None and (self.args or self.env):
            raise ValueError("`args` and `env` belong to a `command` server")


McpServerEntry = Annotated[
    McpServer,
    Meta(
        extra_json_schema={
            "oneOf": [
                {"required": ["command"], "not": {"required": ["headers"]}},
                {
                    "required": ["url"],
                    "not": {"anyOf": [{"required": ["args"]}, {"required": ["env"]}]},
                },
            ]
        }
    ),
]


class ModelOptions(Params, omit_defaults=True, kw_only=True):
    """Extension: how one model is asked (an absent field: the default)."""

    api: Literal["responses", "chat"] | None = None
    """OpenAI (and compatible servers): the Responses API or Chat Completions. Default:
    Responses for OpenAI's own reasoning models (their reasoning is kept between tool
    calls only there), Chat Completions otherwise."""
    reasoning_effort: Literal["low", "medium", "high"] | None = None
    """OpenAI reasoning models: how hard the model thinks (default: the model's)."""
    thinking_budget: Annotated[int, Meta(ge=1_024, le=128_000)] | None = None
    """Anthropic: tokens of extended thinking per call (absent: no extended thinking);
    it must stay below the call's output limit."""


DEFAULT_FRAME_BUDGET_MB = 200
FrameBudgetMb = Annotated[int, Meta(ge=10, le=100_000)]
McpServerName = Annotated[str, Meta(min_length=1, max_length=100)]
PolicyRule = dict[str, Any]
"""Shape owned by the gatekeeper (tool + origin > tool > effect class; deny wins)."""


class Settings(Result, kw_only=True):
    """Effective settings. Never contains a secret: MCP ``env``/``headers`` literal values
    come back masked as ``"********"`` (credential references come back as they are)."""

    provider: Provider | None
    model: str | None
    model_capabilities: ModelCapabilities | None
    task_model: str | None
    default_token_budget: int | None
    policy_rules: list[PolicyRule]
    mcp_servers: dict[str, McpServer]
    base_url: str | None = None
    """Extension: the provider's base URL (OpenAI-compatible servers)."""
    api_key_ref: str | None = None
    """Extension: the credential reference the provider's key is read from."""
    model_limits: dict[str, ModelLimit] = {}
    """Extension: context window and output limit per model id."""
    mcp_status: list[dict[str, Any]] = []
    """Extension: per MCP server ``{name, transport, state, toolCount, reason?, ...}``
    (``state``: connecting, connected, reconnecting, failed, disabled)."""
    default_cost_budget_usd: float | None = None
    """Extension: US dollars a Turn may spend by default (only with a model whose price is
    known; other models are held by ``defaultTokenBudget`` alone)."""
    share_active_tab: bool = False
    """Extension: a message sent from the panel hands the tab active in the user's window
    to the thread (``turn.submit``'s ``shareTab``); off, the thread asks before it acts on
    a tab it does not own."""
    act_on_unowned_tabs: bool = False
    """Extension: threads act on tabs they do not own (the user's, another thread's)
    without first asking; off by default."""
    max_parallel_turns: int = DEFAULT_MAX_PARALLEL_TURNS
    """Extension: how many Turns may run at the same time (1 to 16, default 3); a further
    Turn waits, its Run ``queued`` with a ``waitReason``, until one of them finishes or
    stops to wait for the user."""
    model_options: dict[str, ModelOptions] = {}
    """Extension: per model id, which OpenAI API, the reasoning effort and the Anthropic
    thinking budget."""
    capture_frames: bool = True
    """Extension (issue 30): capture a frame of the tab around each browser action, for the
    turn's timeline and its reports (never sent to the model)."""
    frame_budget_mb: int = DEFAULT_FRAME_BUDGET_MB
    """Extension: the most the profile's frames may take, in MB (10 to 100000, default
    200); past it the oldest frames are removed first."""


class SettingsGetParams(Params, kw_only=True):
    pass


class SettingsResult(Result, kw_only=True):
    """``{settings}``."""

    settings: Settings


SettingsGetResult = SettingsResult
SettingsUpdateResult = SettingsResult

_Opt = UnsetType  # absent: unchanged


class SettingsUpdateParams(Params, omit_defaults=True, kw_only=True):
    """Change settings: an absent field stays as it is; ``null`` resets it to the
    environment's default. ``mcpServers`` replaces the whole map (and ``mcp.json``); a
    masked ``"********"`` value keeps the stored literal."""

    command_id: CommandId
    provider: Provider | _Opt | None = UNSET
    model: ModelName | _Opt | None = UNSET
    model_capabilities: ModelCapabilities | _Opt | None = UNSET
    task_model: ModelName | _Opt | None = UNSET
    default_token_budget: TokenBudget | _Opt | None = UNSET
    policy_rules: list[PolicyRule] | _Opt | None = UNSET
    mcp_servers: dict[McpServerName, McpServerEntry] | _Opt | None = UNSET
    base_url: Annotated[str, Meta(pattern=r"^https?://")] | _Opt | None = UNSET
    api_key_ref: CredentialName | _Opt | None = UNSET
    model_limits: dict[ModelName, ModelLimit] | _Opt | None = UNSET
    """Extension: replaces the whole map of per-model limits."""
    default_cost_budget_usd: CostBudgetUsd | _Opt | None = UNSET
    """Extension: US dollars a Turn may spend by default; null: no budget in money."""
    share_active_tab: bool | _Opt | None = UNSET
    """Extension: hand the active tab to the thread with each message (null: off)."""
    act_on_unowned_tabs: bool | _Opt | None = UNSET
    """Extension: act on tabs a thread does not own without asking (null: the default)."""
    max_parallel_turns: MaxParallelTurns | _Opt | None = UNSET
    """Extension: how many Turns may run at the same time (1 to 16); null: the default, 3.
    Takes effect at once: raising it starts waiting Turns."""
    model_options: dict[ModelName, ModelOptions] | _Opt | None = UNSET
    """Extension: replaces the whole map of per-model options (API, reasoning effort,
    thinking budget); null: none."""
    capture_frames: bool | _Opt | None = UNSET
    """Extension: capture frames of browser actions (null: the default, on)."""
    frame_budget_mb: FrameBudgetMb | _Opt | None = UNSET
    """Extension: the frames' size budget in MB; null: the default, 200. Lowering it
    removes the oldest frames at once."""


Secret = Annotated[str, Meta(min_length=1, max_length=65_536)]


class CredentialsSetParams(Params, kw_only=True):
    """Store a secret under ``ref``. The secret never comes back, and ``repr`` masks it."""

    command_id: CommandId
    ref: CredentialName
    secret: Secret
    origin: Annotated[str, Meta(pattern=r"^https?://[^/?#]+/?$", max_length=300)] | None = None
    """Extension: the provider origin this key is for; default: the configured provider's.
    The key is sent nowhere else (a new origin needs the key entered again)."""

    def __repr__(self) -> str:
        return f"CredentialsSetParams(command_id={self.command_id!r}, ref={self.ref!r}, secret=***)"


class CredentialsSetResult(Result, kw_only=True):
    ref: str
    fingerprint: str


class CredentialsDeleteParams(Params, kw_only=True):
    """Delete the secret under ``ref``. ``secret`` is accepted (protocol.md lists it for
    both ops) and ignored; ``repr`` masks it."""

    command_id: CommandId
    ref: CredentialName
    secret: str | None = None

    def __repr__(self) -> str:
        return f"CredentialsDeleteParams(command_id={self.command_id!r}, ref={self.ref!r})"


class CredentialsDeleteResult(Result, kw_only=True):
    """``fingerprint`` of the deleted secret; null when nothing was stored under ``ref``."""

    ref: str
    fingerprint: str | None


class PermissionsListParams(Params, kw_only=True):
    """Extension filters: only grants for this thread / origin."""

    thread_id: Id | None = None
    origin: str | None = None


class GrantsResult(Result, kw_only=True):
    """``{grants}``: the grants after the op."""

    grants: list[Grant]


PermissionsListResult = GrantsResult


class PermissionsRevokeParams(Params, kw_only=True):
    command_id: CommandId
    grant_id: Id


PermissionsRevokeResult = GrantsResult
