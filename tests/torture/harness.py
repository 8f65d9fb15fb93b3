"""The kill -9 torture harness (issue 6.7).

``run_torture(n_kills, seed)`` drives the real ``panelot-host serve`` through the scripted
workload (``workload.py``), SIGKILLs it at random instants (``killer.py``; also during
start-up and recovery), and after every kill, with the process dead, checks the store
(``checks.py``): integrity, acknowledged commands, tool results, writes run twice, usage
sums, steering, and every provider request the model saw. Each restart opens every thread.
A last, unkilled restart opens everything once more and must exit cleanly on stdin EOF.

``failpoints`` turns on the engine's fault-injection points (``PANELOT_FAILPOINTS``) so a
test can show that the checks catch each class of bug; ``triggers`` narrows where kills
land (e.g. ``("steer_ack",)`` to aim at the steering path).
"""

from __future__ import annotations

import random
import shutil
import signal
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import msgspec
from tests.torture.checks import RequestLog, check_store
from tests.torture.client import HostClient, HostDied, RpcFailure
from tests.torture.killer import Killer, KillPlan, plan_kill
from tests.torture.ledger import Ledger, Violation
from tests.torture.shim import WRITE_TOOLS, Shim
from tests.torture.workload import Driver, World

DB_PATH = Path("profiles") / "default" / "panelot.db"


class Report(msgspec.Struct):
    seed: int
    failpoints: list[str]
    kills: int = 0
    kills_survived: int = 0  # kills after which every check passed (and the restart opened all)
    acks_checked: int = 0  # acknowledged commands, each verified after every later kill
    ack_verifications: int = 0
    requests_checked: int = 0
    executions: int = 0  # browser.invoke calls the shim ran
    writes_rerun: int = 0  # write calls the shim ran more than once (after a chosen retry)
    seconds: float = 0.0
    home: str = ""
    kill_points: list[str] = []
    acks_by_method: dict[str, int] = {}
    violations: list[Violation] = []

    def kinds(self) -> set[str]:
        return {v.kind for v in self.violations}

    def summary(self) -> str:
        lines = [
            f"seed {self.seed}, failpoints {self.failpoints or 'none'}: "
            f"{self.kills_survived}/{self.kills} kills survived, "
            f"{self.acks_checked} acknowledgements checked ({self.ack_verifications} "
            f"verifications), {self.requests_checked} provider requests checked, "
            f"{self.executions} tool executions ({self.writes_rerun} writes re-run after a "
            f"retry), {len(self.violations)} violations, "
            f"{self.seconds:.1f} s"
        ]
        lines += [f"  {v}" for v in self.violations[:20]]
        return "\n".join(lines)


_CRASH_STATUSES = (1, -signal.SIGUSR1)
"""A crashed host exits 1; SIGUSR1 before the host installed its handler ends it too."""


class KillRouter:
    """Forwards the shim's invoke notices to the current round's killer."""

    def __init__(self) -> None:
        self.killer: Killer | None = None

    def on_invoke(self, tool: str, phase: str) -> None:
        killer = self.killer
        if killer is None:
            return
        if phase == "answered":
            killer.notify("invoke_answered")
        elif tool in WRITE_TOOLS:
            killer.notify("write_invoked")


class Torture:
    def __init__(
        self, seed: int, failpoints: Sequence[str], home: Path, *, crash: bool = False
    ) -> None:
        self.crash = crash  # die by an unexpected exception in the host, not SIGKILL
        self.rng = random.Random(seed)
        self.home = home
        home.mkdir(parents=True, exist_ok=True)
        self.router = KillRouter()
        self.shim = Shim(seed, self.router.on_invoke)
        self.ledger = Ledger()
        self.world = World()
        self.requests = RequestLog(home / "requests.jsonl")
        self.report = Report(seed, sorted(failpoints), home=str(home))
        self.env = {
            "PANELOT_PROVIDER": "scripted",
            "PANELOT_SCRIPTED": "directives",
            "PANELOT_SCRIPTED_LOG": str(self.requests.path),
        }
        if crash:
            failpoints = [*failpoints, "unexpected_exception"]
        if failpoints:
            self.env["PANELOT_FAILPOINTS"] = ",".join(failpoints)
        self._seen: set[tuple[str, str]] = set()

    def violation(self, kind: str, detail: str) -> None:
        """Record a violation once (it stays visible after later kills)."""
        if (kind, detail) not in self._seen:
            self._seen.add((kind, detail))
            self.ledger.violation(kind, detail)

    def round(self, plan: KillPlan, fallback_s: float) -> None:
        """One host lifetime, ended by the planned SIGKILL."""
        self.shim.kill_no = self.ledger.kill_no
        client = HostClient(self.home, self.env, self.shim)
        killer = Killer(plan, client, self.rng, crash=self.crash)
        self.router.killer = killer
        killer.notify("start")
        try:
            Driver(client, self.world, self.ledger, killer, self.rng).run(fallback_s)
        except HostDied:
            pass
        finally:
            status = killer.finish()
            client.reap()
            self.router.killer = None
        if self.crash and killer.fired_by and status not in _CRASH_STATUSES:
            self.violation("crash", f"the crashed host ended with {status} (expected 1)")
        self.report.kill_points.append(f"{plan} (fired by {killer.fired_by or 'plan'})")

    def check(self) -> None:
        """Every offline check, with the host dead."""
        db = self.home / DB_PATH
        if db.exists():
            self.report.ack_verifications += check_store(db, self.ledger, self.shim, self.violation)
        self.requests.check_new(self.violation)

    def final_restart(self) -> None:
        """An unkilled restart: every thread opens; stdin EOF ends it cleanly."""
        client = HostClient(self.home, self.env, self.shim)
        try:
            Driver(client, self.world, self.ledger, None, self.rng).start()
            code = client.close_gracefully()
            if code != 0:
                self.violation("restart", f"the last host exited with {code} on stdin EOF")
        except (HostDied, RpcFailure) as exc:
            self.violation("restart", f"the host did not restart cleanly: {exc}")
        finally:
            client.kill()
            client.reap()


def run_torture(
    n_kills: int,
    seed: int,
    failpoints: Sequence[str] = (),
    home: Path | None = None,
    *,
    triggers: Sequence[str] | None = None,
    fallback_s: float = 3.0,
    crash: bool = False,
) -> Report:
    """Kill the host ``n_kills`` times (with ``crash``: make it raise an unexpected
    exception instead); the report lists every violation found."""
    owned = home is None
    home = home or Path(tempfile.mkdtemp(prefix="panelot-torture-"))
    torture = Torture(seed, failpoints, home, crash=crash)
    started = time.monotonic()
    for kill_no in range(1, n_kills + 1):
        plan = plan_kill(torture.rng, triggers, torture.world.start_s)
        torture.round(plan, fallback_s)
        torture.ledger.kill_no = kill_no
        torture.check()
    torture.final_restart()
    torture.check()
    report = torture.report
    report.kills = n_kills
    failed_kills = {v.kill_no for v in torture.ledger.violations if v.kill_no >= 1}
    report.kills_survived = n_kills - len(failed_kills)
    report.acks_checked = len(torture.ledger.acks)
    for ack in torture.ledger.acks:
        key = ack.method + (f" {ack.params['outcome']}" if ack.method == "recovery.resolve" else "")
        report.acks_by_method[key] = report.acks_by_method.get(key, 0) + 1
    report.requests_checked = torture.requests.checked
    report.executions = len(torture.shim.executions)
    report.writes_rerun = sum(1 for n in torture.shim.write_counts().values() if n > 1)
    report.violations = list(torture.ledger.violations)
    report.seconds = time.monotonic() - started
    if owned and not report.violations:
        shutil.rmtree(home, ignore_errors=True)
    return report
