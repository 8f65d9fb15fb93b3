"""When to SIGKILL the host: a random delay after the n-th occurrence of a trigger.

Triggers: ``start`` (the process was spawned: the kill lands within the time the last
start took, from spawn through imports, the engine's recovery in ``initialize`` and the
harness's recovery pass), ``action`` (a workload action finished), ``steer_ack`` (a ``turn.steer``
was acknowledged), ``invoke_answered`` (the shim answered a ``browser.invoke``: the host
is storing the result), ``write_invoked`` (a write tool is executing in the shim). A round
whose trigger never comes is killed after ``fallback_s`` at a random instant anyway.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence

import msgspec
from tests.torture.client import HostClient

TRIGGERS = ("start", "action", "steer_ack", "invoke_answered", "write_invoked")
_WEIGHTS = {"start": 2, "action": 5, "steer_ack": 2, "invoke_answered": 2, "write_invoked": 2}
_MAX_DELAY = {
    "action": 0.3,
    "steer_ack": 0.04,
    "invoke_answered": 0.05,
    "write_invoked": 0.015,
}


class KillPlan(msgspec.Struct, frozen=True):
    trigger: str
    ordinal: int  # the n-th occurrence of the trigger in the round
    delay_s: float

    def __str__(self) -> str:
        return f"{self.delay_s * 1000:.0f} ms after {self.trigger} #{self.ordinal}"


def plan_kill(
    rng: random.Random, triggers: Sequence[str] | None = None, start_s: float = 0.5
) -> KillPlan:
    """A random kill point among ``triggers`` (default: all, weighted); ``start_s``: how
    long the last start took (spawn to the end of the recovery pass)."""
    names = list(triggers or TRIGGERS)
    trigger = rng.choices(names, weights=[_WEIGHTS[n] for n in names])[0]
    if trigger == "start":
        return KillPlan(trigger, 1, rng.uniform(0.0, start_s))
    ordinal = rng.randint(1, 12 if trigger == "action" else 2)
    return KillPlan(trigger, ordinal, rng.uniform(0.0, _MAX_DELAY[trigger]))


class Killer:
    """Arms one death for ``client`` as ``plan`` says (SIGKILL, or ``client.crash`` with
    ``crash``: an unexpected exception inside the host); thread-safe ``notify``."""

    def __init__(
        self, plan: KillPlan, client: HostClient, rng: random.Random, *, crash: bool = False
    ) -> None:
        self.plan = plan
        self._client = client
        self._crash = crash
        self._rng = rng
        self._lock = threading.Lock()
        self._seen = 0
        self._timer: threading.Timer | None = None
        self.fired_by = ""

    def notify(self, trigger: str) -> None:
        with self._lock:
            if trigger != self.plan.trigger or self._timer is not None:
                return
            self._seen += 1
            if self._seen >= self.plan.ordinal:
                self._arm(self.plan.delay_s, trigger)

    def fallback(self) -> None:
        """The trigger did not come: kill at a random instant soon."""
        with self._lock:
            if self._timer is None:
                self._arm(self._rng.uniform(0.0, 0.3), "fallback")

    @property
    def armed(self) -> bool:
        return self._timer is not None

    def _arm(self, delay: float, why: str) -> None:
        self.fired_by = why
        die = self._client.crash if self._crash else self._client.kill
        self._timer = threading.Timer(delay, die)
        self._timer.daemon = True
        self._timer.start()

    def finish(self) -> int | None:
        """Make sure the process is dead (the planned death, or now) and the timer ended.

        Returns the exit status of a crashed host that ended by itself (None otherwise)."""
        with self._lock:
            timer = self._timer
        if timer is not None:
            timer.join(5.0)
        status = self._client.wait_exit(5.0) if self._crash and timer is not None else None
        self._client.kill()
        return status
