"""``FixedModels``: one provider for every model call, for the tests and benchmarks that
drive the engine with a scripted provider (a test double, not shipped in the package)."""

from __future__ import annotations

import msgspec

from panelot_host.engine.models import ResolvedModel
from panelot_host.providers.catalog import ModelInfo
from panelot_host.providers.types import Provider


class FixedModels:
    """One provider for every call: ``ScriptedProvider`` or a real adapter."""

    def __init__(
        self,
        provider: Provider,
        info: ModelInfo,
        *,
        task: ResolvedModel | None = None,
        transport: str = "fixed",
    ) -> None:
        self._resolved = ResolvedModel(provider, info, transport)
        self._task = task

    def resolve(self, model: str | None) -> ResolvedModel:
        if model is None or model == self._resolved.model:
            return self._resolved
        return msgspec.structs.replace(
            self._resolved, info=msgspec.structs.replace(self._resolved.info, id=model)
        )

    def task_model(self) -> ResolvedModel | None:
        return self._task

    async def aclose(self) -> None:
        """The caller owns the fixed providers."""
