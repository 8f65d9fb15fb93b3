"""When a schedule falls due: daily at the browser's local time, every N hours from when
it was set; the latest occurrence run when barely late, every other one reported."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from panelot_host.engine.workflow_schedule import HOUR_MS, check, next_after, occurrences
from panelot_host.protocol.workflows import DailySchedule, EverySchedule


def ms(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


def test_daily_is_at_the_browsers_local_time() -> None:
    # 09:30 in UTC+2 is 07:30 UTC
    at = next_after(DailySchedule(at="09:30"), 0, 120, ms("2026-12-04T08:00:00"))
    assert at == ms("2026-12-05T07:30:00")
    assert next_after(DailySchedule(at="09:30"), 0, 120, ms("2026-12-04T07:00:00")) == ms(
        "2026-12-04T07:30:00"
    )


def test_a_late_alarm_still_runs_once_and_a_closed_browser_reports_the_rest() -> None:
    every = EverySchedule(hours=1)
    anchor = ms("2026-12-04T00:00:00")
    on_time = check(every, anchor, 0, anchor, anchor + HOUR_MS + 60_000, 15 * 60_000)
    assert on_time.due_at == anchor + HOUR_MS and on_time.missed == []
    closed = check(every, anchor, 0, anchor, anchor + 5 * HOUR_MS + 3_600_000 // 2, 15 * 60_000)
    assert closed.due_at is None and len(closed.missed) == 5


@given(hours=st.integers(1, 48), span=st.integers(0, 500 * HOUR_MS))
def test_every_occurrence_is_counted_once(hours: int, span: int) -> None:
    every = EverySchedule(hours=hours)
    found = occurrences(every, 0, 0, 0, span)
    assert len(found) == span // (hours * HOUR_MS)
    halves = occurrences(every, 0, 0, 0, span // 2) + occurrences(every, 0, 0, span // 2, span)
    assert halves == found
