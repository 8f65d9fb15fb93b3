"""When a scheduled workflow falls due (issue 29): pure arithmetic on epoch milliseconds.

A daily schedule's ``at`` is the browser's local time, given as its offset from UTC when
the schedule was set; an every-N-hours schedule counts from when it was set (its anchor).
``workflow.due`` takes the occurrences since the last check: the latest one is run when it
is at most ``grace`` late; every other one is reported as missed, never run.
"""

from __future__ import annotations

import msgspec

from panelot_host.protocol.workflows import DailySchedule, EverySchedule, Schedule

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
MAX_COUNTED = 10_000  # occurrences counted at most (a schedule unchecked for years)


class DueCheck(msgspec.Struct, frozen=True):
    due_at: int | None
    missed: list[int]


def _daily_start(at: str, offset_min: int, after: int) -> int:
    """The first daily occurrence strictly after ``after``."""
    hours, minutes = (int(x) for x in at.split(":"))
    shift = offset_min * 60_000
    local_day = (after + shift) // DAY_MS * DAY_MS
    first = local_day + (hours * 60 + minutes) * 60_000 - shift
    return first if first > after else first + DAY_MS


def next_after(schedule: Schedule, anchor: int, offset_min: int, after: int) -> int:
    """The first occurrence strictly after ``after``."""
    match schedule:
        case DailySchedule(at=at):
            return _daily_start(at, offset_min, after)
        case EverySchedule(hours=hours):
            step = hours * HOUR_MS
            if after < anchor:
                return anchor + step
            return anchor + ((after - anchor) // step + 1) * step
    raise AssertionError(schedule)


def _period(schedule: Schedule) -> int:
    return DAY_MS if isinstance(schedule, DailySchedule) else schedule.hours * HOUR_MS


def occurrences(
    schedule: Schedule, anchor: int, offset_min: int, after: int, upto: int
) -> list[int]:
    """Occurrences in ``(after, upto]``, the oldest first (at most ``MAX_COUNTED``, the latest)."""
    first = next_after(schedule, anchor, offset_min, after)
    if first > upto:
        return []
    period = _period(schedule)
    count = min((upto - first) // period + 1, MAX_COUNTED)
    last = first + ((upto - first) // period) * period
    return [last - (count - 1 - i) * period for i in range(count)]


def check(
    schedule: Schedule, anchor: int, offset_min: int, checked_at: int, now: int, grace_ms: int
) -> DueCheck:
    """What falls due between the last check and ``now``."""
    found = occurrences(schedule, anchor, offset_min, checked_at, now)
    if not found:
        return DueCheck(None, [])
    if now - found[-1] <= grace_ms:
        return DueCheck(found[-1], found[:-1])
    return DueCheck(None, found)
