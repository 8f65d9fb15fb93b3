"""The host process's state: configuration, the open profile store and its engine."""

from __future__ import annotations

import logging
from pathlib import Path

import anyio
import anyio.to_thread
import pydantic

from panelot_host.engine.core import Engine
from panelot_host.errors import InvalidState
from panelot_host.server.bus import EventBus
from panelot_host.store.db import Database
from panelot_host.store.lease import DEFAULT_WAIT_S, WriterLease
from panelot_host.store.profiles import database_path
from panelot_host.store.seq import SeqAllocator

log = logging.getLogger(__name__)


class HostConfig(pydantic.BaseModel):
    """What a host process needs to know; built once by the CLI and passed in."""

    model_config = pydantic.ConfigDict(frozen=True)

    home: Path
    lease_wait_s: float = DEFAULT_WAIT_S


class OpenProfile:
    """One profile's database under the writer lease, with its engine and event bus."""

    def __init__(self, profile_id: str | None, db: Database, lease: WriterLease) -> None:
        self.profile_id = profile_id
        self.db = db
        self.lease = lease
        self.seq = SeqAllocator(db)
        self.bus = EventBus(self.seq)
        self.engine = Engine(db, self.seq, self.bus)


class Host:
    """Serves one profile at a time; the first ``initialize`` chooses it."""

    def __init__(self, config: HostConfig) -> None:
        self.config = config
        self._profile: OpenProfile | None = None
        self._opening = anyio.Lock()

    @property
    def profile(self) -> OpenProfile | None:
        return self._profile

    async def open_profile(self, profile_id: str | None) -> OpenProfile:
        """Take the profile's writer lease and open its store (migrating it).

        Raises ``LeaseUnavailable`` or ``SchemaTooNew`` (both ``StartupError``), and
        ``InvalidState`` when this process already serves another profile.
        """
        async with self._opening:
            if self._profile is not None:
                if self._profile.profile_id != profile_id:
                    raise InvalidState(
                        "this host process already serves another Chrome profile; "
                        "each profile runs its own host"
                    )
                return self._profile
            path = database_path(self.config.home, profile_id)
            lease = WriterLease(path, wait_s=self.config.lease_wait_s)
            await anyio.to_thread.run_sync(lease.acquire)
            try:
                db = Database.open(path)
            except BaseException:
                lease.release()
                raise
            log.info("opened profile store %s", path)
            self._profile = OpenProfile(profile_id, db, lease)
            return self._profile

    async def aclose(self) -> None:
        """Settle the engine, close the store and give up the lease."""
        profile, self._profile = self._profile, None
        if profile is None:
            return
        with anyio.CancelScope(shield=True):
            await profile.engine.aclose()
            profile.db.close()
            profile.lease.release()
