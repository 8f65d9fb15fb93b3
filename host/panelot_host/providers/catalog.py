"""Model capabilities and prices from the shipped data file ``models.json``.

A model name matches a known id exactly or with a version suffix (``-20250929``,
``-2025-04-14``, ``-latest``): ``claude-sonnet-4-5-20250929`` is ``claude-sonnet-4-5``, but
``o3-mini`` is not ``o3``. Unknown models get the protocol's conservative defaults (tool use
on, vision off, no price), and ``PANELOT_MODEL_CAPABILITIES`` overrides the capabilities of
any model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib import resources

import msgspec

_VERSION_SUFFIX = re.compile(r"(-\d{4}-\d{2}-\d{2}|-\d{8}|-latest)?")
CAPABILITY_NAMES = ("tools", "vision")


class Price(msgspec.Struct, frozen=True, rename="camel"):
    """USD per million tokens."""

    input: float
    output: float
    cache_read: float
    cache_write: float


class ModelInfo(msgspec.Struct, frozen=True, rename="camel"):
    id: str
    provider: str = ""
    tool_use: bool = True
    vision: bool = False
    context_window: int | None = None  # None: unknown
    max_output_tokens: int | None = None
    price: Price | None = None  # None: unknown, so cost is unknown
    known: bool = True
    reasoning: bool = False  # an OpenAI reasoning model: served over the Responses API


class _ModelsFile(msgspec.Struct):
    models: list[ModelInfo]


class Capabilities(msgspec.Struct, frozen=True):
    tool_use: bool
    vision: bool


def parse_capabilities(text: str) -> Capabilities:
    """Parse ``PANELOT_MODEL_CAPABILITIES``: a comma list of ``tools``/``vision``.

    An empty string means neither. Raises ``ValueError`` naming an unknown entry.
    """
    names = {part.strip().lower() for part in text.split(",") if part.strip()}
    unknown = names - set(CAPABILITY_NAMES)
    if unknown:
        raise ValueError(
            f"PANELOT_MODEL_CAPABILITIES: unknown {sorted(unknown)}; use a comma list of "
            "'tools' and 'vision' (empty means neither)"
        )
    return Capabilities(tool_use="tools" in names, vision="vision" in names)


class ModelCatalog:
    """Known models; ``lookup`` never fails."""

    def __init__(self, models: Sequence[ModelInfo]) -> None:
        self._by_id = {m.id: m for m in models}

    @classmethod
    def load(cls) -> ModelCatalog:
        """The catalog shipped in the package (``providers/models.json``)."""
        raw = resources.files("panelot_host.providers").joinpath("models.json").read_bytes()
        return cls(msgspec.json.decode(raw, type=_ModelsFile).models)

    def lookup(self, model: str, override: Capabilities | None = None) -> ModelInfo:
        """Info for ``model``; unknown: tool use on, vision off, unknown price and sizes."""
        info = self._find(model) or ModelInfo(id=model, known=False)
        if override is not None:
            info = msgspec.structs.replace(info, tool_use=override.tool_use, vision=override.vision)
        return info

    def _find(self, model: str) -> ModelInfo | None:
        if model in self._by_id:
            return self._by_id[model]
        candidates = [
            known
            for known in self._by_id
            if model.startswith(known) and _VERSION_SUFFIX.fullmatch(model[len(known) :])
        ]
        return self._by_id[max(candidates, key=len)] if candidates else None
