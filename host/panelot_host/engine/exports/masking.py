"""Secrets out of an export: every stored credential, anything shaped like an API key,
and the values a tool call typed into a password field or passed under a secret's name.

Every format is rendered from one masked document (``masked_document``), so what the
JSON hides, the Markdown, the HTML report and the GIF's captions hide as well. A typed
password is masked where the call shows it and wherever else its text appears (the model
may have repeated it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final

from panelot_host.secret_mask import SecretMask

HIDDEN: Final = "••••••••"
"""What a password or secret value shows as (the extension's frames show typed password
text the same way)."""

_SECRET_KEY: Final = re.compile(
    r"passw|passphrase|^pass$|pwd|secret|token|api[_-]?key|credential|^auth(orization)?$",
    re.IGNORECASE,
)
_TYPING_TOOLS: Final = frozenset({"browser_type", "browser_fill_form", "browser_press_key"})


def is_secret_key(name: str) -> bool:
    """Whether an argument named ``name`` holds a secret (``password``, ``apiKey``, ...)."""
    return bool(_SECRET_KEY.search(name))


def typed_into_password(item: dict[str, Any]) -> bool:
    """Whether a toolCall item (wire JSON) typed into a password field: its target element
    or its result says so, or the extension masked the text its frames show."""
    if item.get("name") not in _TYPING_TOOLS:
        return False
    element = str((item.get("target") or {}).get("element") or "")
    if "password" in element.lower():
        return True
    if any(str(f.get("typed") or "").strip("•") == "" and f.get("typed") for f in _frames(item)):
        return True
    result = item.get("result") or {}
    return "textbox(password)" in str(result.get("content") or "")


def _frames(item: dict[str, Any]) -> list[dict[str, Any]]:
    frames = item.get("frames")
    return frames if isinstance(frames, list) else []


def hide_arguments(args: dict[str, Any], password: bool) -> tuple[dict[str, Any], list[str]]:
    """``args`` with each secret value replaced by ``HIDDEN`` (the text typed, when
    ``password``), and the values hidden."""
    hidden: list[str] = []
    shown: dict[str, Any] = {}
    for key, value in args.items():
        if isinstance(value, str) and (is_secret_key(key) or (password and key == "text")):
            hidden.append(value)
            shown[key] = HIDDEN
        elif isinstance(value, dict):
            shown[key], inner = hide_arguments(value, password)
            hidden += inner
        else:
            shown[key] = value
    return shown, hidden


class ExportMask:
    """The secrets an export must not show: the credentials given, and the values hidden
    from tool arguments as the document is masked."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._mask = SecretMask()
        for secret in secrets:
            self._mask.add(secret)

    def learn(self, values: Iterable[str]) -> None:
        for value in values:
            self._mask.add(value)

    def text(self, value: str) -> str:
        """``value`` with every known secret and anything key-shaped replaced."""
        return self._mask.mask(value)

    def deep(self, value: Any) -> Any:
        """``value`` (JSON builtins) with every string masked, keys included."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(k): self.deep(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.deep(v) for v in value]
        return value


def masked_document(document: dict[str, Any], mask: ExportMask) -> dict[str, Any]:
    """The export document (JSON builtins) with its secrets masked: first the secret
    arguments of tool calls (and of their approval requests) hidden and learnt, then
    every string of the whole document masked."""
    passwords: set[str] = set()
    for item in document.get("items", []):
        if item.get("kind") == "toolCall":
            password = typed_into_password(item)
            if password:
                passwords.add(item["id"])
                for frame in _frames(item):
                    if frame.get("typed"):
                        frame["typed"] = HIDDEN
            item["args"], hidden = hide_arguments(item.get("args") or {}, password)
            mask.learn(hidden)
    for approval in document.get("approvals", []):
        request = approval.get("request")
        if request is not None:
            password = approval.get("toolCallId") in passwords
            request["args"], hidden = hide_arguments(request.get("args") or {}, password)
            mask.learn(hidden)
    for frame in document.get("frames", []):
        if frame.get("itemId") in passwords and frame.get("typed"):
            frame["typed"] = HIDDEN
    masked: dict[str, Any] = mask.deep(document)
    return masked
