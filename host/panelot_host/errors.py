"""The one exception tree of the Panelot host.

Every error the engine raises on purpose is a ``PanelotError``. Each class carries the
protocol error ``kind`` it maps to; the server turns them into JSON-RPC errors in exactly
one place (``panelot_host.server.errors``). Tool errors meant for the model are *results*,
not exceptions.

    PanelotError                      kind
    ├── NotInitialized                not_initialized
    ├── NotFound                      not_found
    ├── InvalidState                  invalid_state
    │   └── IllegalTransition         (a run state change the state machine forbids)
    ├── StaleTurn                     stale_turn
    ├── TurnActive                    turn_active
    ├── QueueFull                     queue_full
    ├── Conflict                      conflict
    ├── ThreadBusy                    thread_busy
    ├── CapabilityError               capability
    ├── DriftError                    drift
    ├── TooLarge                      too_large
    ├── StoreError                    storage (a commit failed: disk full, I/O, busy)
    ├── ProviderError                 provider
    │   ├── ProviderHTTPError         (status code; retryable for 429/5xx/529)
    │   ├── ProviderConnectionError   (retryable)
    │   ├── ProviderStreamError       (malformed or truncated stream, in-band error)
    │   ├── ProviderConfigError       (no provider, no key)
    │   │   └── KeyOriginError        (a key kept from an origin it was not entered for)
    │   └── ProtocolViolation         (tool calls with a non-tool_use stop reason)
    ├── ContextOverflow               context_overflow (still too long after compacting)
    ├── ToolError                     tool
    │   └── OutcomeUnknown            (dispatched, answer lost: decided by recovery class)
    │   └── InvalidToolDescriptor     (ToolRegistry.register refused a descriptor)
    ├── InvalidParams                 (JSON-RPC -32602, with a list of violations)
    │   └── UnsupportedProtocolVersion (initialize: no protocol version both sides speak)
    ├── InvalidResult                 (a peer's response result failed validation)
    └── JsonRpcError                  (a frame is not a usable JSON-RPC message)
        ├── ParseError                (-32700: invalid UTF-8 or invalid JSON)
        ├── InvalidRequest            (-32600: not a JSON-RPC 2.0 object)
        │   └── InvalidResponse       (a malformed response: logged and dropped, not answered)
        └── MethodNotFound            (-32601: unknown method)

Errors that stop the process before it serves (``StartupError`` and its children:
``SchemaTooNew``, ``MigrationFailed``, ``LeaseUnavailable``) are not protocol errors: the
CLI prints them to stderr and exits non-zero; ``initialize`` answers them as
``invalid_state`` with their message.
"""

from __future__ import annotations

from typing import ClassVar


class PanelotError(Exception):
    """Base of every deliberate engine error; ``kind`` is the protocol's ``data.kind``."""

    kind: ClassVar[str] = "internal"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotInitialized(PanelotError):
    kind = "not_initialized"


class NotFound(PanelotError):
    kind = "not_found"


class InvalidState(PanelotError):
    kind = "invalid_state"


class IllegalTransition(InvalidState):
    """A run state change that ``vocabulary.RUN_TRANSITIONS`` does not allow."""


class StaleTurn(PanelotError):
    kind = "stale_turn"


class TurnActive(PanelotError):
    kind = "turn_active"


class QueueFull(PanelotError):
    kind = "queue_full"


class Conflict(PanelotError):
    kind = "conflict"


class ThreadBusy(PanelotError):
    kind = "thread_busy"


class CapabilityError(PanelotError):
    kind = "capability"


class DriftError(PanelotError):
    kind = "drift"


class TooLarge(PanelotError):
    kind = "too_large"


class StoreError(PanelotError):
    """The store could not commit a change (disk full, I/O error, busy past the timeout);
    it was rolled back whole and the store keeps serving."""

    kind = "storage"


class ProviderError(PanelotError):
    """A model call failed; ``retryable`` says whether a retry before the first token may help."""

    kind = "provider"
    retryable: bool = False

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ProviderHTTPError(ProviderError):
    def __init__(self, status: int, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message, retry_after=retry_after)
        self.status = status
        self.retryable = status == 429 or status >= 500


class ProviderConnectionError(ProviderError):
    retryable = True


class ProviderStreamError(ProviderError):
    """The stream broke or carried an error; ``retryable`` when the provider said overloaded."""

    def __init__(
        self, message: str, *, retryable: bool = False, retry_after: float | None = None
    ) -> None:
        super().__init__(message, retry_after=retry_after)
        self.retryable = retryable


class ProviderConfigError(ProviderError):
    """No usable model configuration. ``setup``: nothing (or no key) is set up yet, so a
    client with a setup screen shows it; ``shell_hint``: the environment variables that
    would do it, for people who start the host from a shell (a browser user cannot)."""

    def __init__(self, message: str, *, setup: bool = False, shell_hint: str | None = None) -> None:
        super().__init__(message)
        self.setup = setup
        self.shell_hint = shell_hint


class KeyOriginError(ProviderConfigError):
    """The configured destination is not where the key may go (``docs/security.md``,
    "Resolution order, and where a key may go"); ``reason`` says which key and which
    origins, the message adds what to do."""

    def __init__(self, reason: str, advice: str) -> None:
        super().__init__(f"{reason}. {advice}")
        self.reason = reason


class ProtocolViolation(ProviderError):
    pass


class ContextOverflow(PanelotError):
    """The conversation does not fit the model's context window, even after compacting."""

    kind = "context_overflow"


class ToolError(PanelotError):
    kind = "tool"


class OutcomeUnknown(ToolError):
    """The tool was dispatched but its answer was lost (the shim's connection closed): it
    may or may not have acted. Not a result: the engine decides by recovery class."""


class InvalidToolDescriptor(ToolError):
    """A descriptor failed registration (bad schema, duplicate or provider-invalid name)."""


class InvalidParams(PanelotError):
    """Params failed validation; ``errors`` lists each violation with its JSON path."""

    kind = "invalid_params"

    def __init__(self, message: str, errors: list[dict[str, str]]) -> None:
        super().__init__(message)
        self.errors = errors


class UnsupportedProtocolVersion(InvalidParams):
    """``initialize`` from a client that shares no protocol version with this host.
    ``oldest``/``newest``: the host's versions; ``update``: the older side (``host`` or
    ``extension``); ``host_update_command``: how to upgrade this host."""

    def __init__(
        self,
        message: str,
        errors: list[dict[str, str]],
        *,
        oldest: int,
        newest: int,
        host_version: str,
        update: str,
        host_update_command: str,
    ) -> None:
        super().__init__(message, errors)
        self.oldest = oldest
        self.newest = newest
        self.host_version = host_version
        self.update = update
        self.host_update_command = host_update_command


class InvalidResult(PanelotError):
    """A response ``result`` from a peer (the shim) failed validation; ``errors`` as in
    ``InvalidParams`` with paths under ``$.result``."""

    kind = "invalid_result"

    def __init__(self, message: str, errors: list[dict[str, str]]) -> None:
        super().__init__(message)
        self.errors = errors


class JsonRpcError(PanelotError):
    """A frame cannot be taken as a JSON-RPC message. ``code`` is the JSON-RPC error code to
    answer with, ``request_id`` the id of the offending request when it could be read
    (``None``: answer with ``id: null``)."""

    code: ClassVar[int] = -32600

    def __init__(self, message: str, request_id: int | str | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id


class ParseError(JsonRpcError):
    kind = "parse_error"
    code = -32700


class InvalidRequest(JsonRpcError):
    kind = "invalid_request"
    code = -32600


class InvalidResponse(InvalidRequest):
    """A message shaped as a response (``result`` or ``error``, no ``method``) that is
    malformed. Its id belongs to the peer's own id space: it is logged and dropped, never
    answered (an answer would carry an id the peer never used for a request)."""


class MethodNotFound(JsonRpcError):
    """``method`` is not one this side serves (named in the message up to 100 characters)."""

    kind = "method_not_found"
    code = -32601

    def __init__(self, method: str, request_id: int | str | None = None) -> None:
        shown = method if len(method) <= 100 else f"{method[:100]}... ({len(method)} characters)"
        super().__init__(f"Method not found: {shown!r}", request_id)
        self.method = method


class StartupError(Exception):
    """The host cannot start serving; the message is shown to the user as is."""


class SchemaTooNew(StartupError):
    """The database was written by a newer Panelot; nothing was changed."""


class MigrationFailed(StartupError):
    """A schema migration failed and was rolled back; the message names the copy of the
    database kept from before migrating."""


class LeaseUnavailable(StartupError):
    pass
