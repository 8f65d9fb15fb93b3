"""The parts of context management (issue 17): the token account, elision, the
"prompt too long" test and the compaction plan."""

from __future__ import annotations

import itertools
import random
from typing import Any

import msgspec
import pytest
from tests.support.invariants import check_request

from panelot_host.engine.context_window import elision
from panelot_host.engine.context_window.compaction import (
    item_cost,
    plan,
    summary_text,
    transcript,
    user_messages,
)
from panelot_host.engine.context_window.tokens import (
    DEFAULT_CONTEXT_WINDOW,
    IMAGE_TOKENS,
    UNCALIBRATED_RATIO,
    TokenEstimator,
    calibrated_ratio,
    effective_ratio,
    message_tokens,
    model_limits,
)
from panelot_host.errors import ProviderHTTPError, ProviderStreamError
from panelot_host.providers.catalog import ModelCatalog, ModelInfo
from panelot_host.providers.overflow import is_prompt_too_long
from panelot_host.providers.types import (
    AssistantMessage,
    ImagePart,
    Message,
    ModelRequest,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from panelot_host.store.records import ItemRecord

# ------------------------------------------------------------------ the token account


def test_limits_come_from_the_catalog_then_settings_then_a_conservative_default() -> None:
    catalog = ModelCatalog.load()
    sonnet = catalog.lookup("claude-sonnet-4-5-20250929")
    assert model_limits(sonnet, {}).context_window == 200_000
    assert model_limits(sonnet, {}).max_output_tokens == 16_384  # one call asks for at most
    unknown = catalog.lookup("llama3.1")
    assert model_limits(unknown, {}).context_window == DEFAULT_CONTEXT_WINDOW
    override = {"modelLimits": {"llama3.1": {"contextWindow": 131_072, "maxOutputTokens": 2048}}}
    limits = model_limits(unknown, override)
    assert (limits.context_window, limits.max_output_tokens) == (131_072, 2048)
    assert limits.input_budget == 131_072 - 2048
    assert model_limits(sonnet, override).context_window == 200_000  # per model id


def test_a_small_window_keeps_room_for_input() -> None:
    limits = model_limits(ModelInfo(id="tiny", context_window=4_096), {})
    assert limits.max_output_tokens == 2_048 and limits.input_budget == 2_048


def test_estimate_counts_text_and_images_and_is_cached_per_message() -> None:
    text = UserMessage(content=[TextPart("x" * 4_000)])
    image = ToolResultMessage(
        call_id="c", name="browser_screenshot", content=[ImagePart("image/png", "AAAA")]
    )
    assert 1_000 <= message_tokens(text) <= 1_010
    assert message_tokens(image) >= IMAGE_TOKENS
    estimator = TokenEstimator()
    first = estimator.request("system", [], [text, image])
    assert estimator.request("system", [], [text, image]) == first
    assert estimator.of(text) == message_tokens(text)


def test_calibration_learns_the_providers_count_and_ignores_missing_usage() -> None:
    assert effective_ratio(0.0) == UNCALIBRATED_RATIO
    ratio = calibrated_ratio(0.0, 1_000, Usage(input_tokens=300, cache_read_tokens=900))
    assert ratio == pytest.approx(1.2)
    smoothed = calibrated_ratio(ratio, 1_000, Usage(input_tokens=1_000))
    assert ratio > smoothed > 1.0
    assert calibrated_ratio(smoothed, 1_000, Usage()) == smoothed
    assert calibrated_ratio(1.0, 10, Usage(input_tokens=10_000)) == pytest.approx(2.5)  # clamped


# ------------------------------------------------------------------ prompt too long


@pytest.mark.parametrize(
    "error",
    [
        ProviderHTTPError(400, "invalid_request_error: prompt is too long: 210000 tokens > 200000"),
        ProviderHTTPError(400, "This model's maximum context length is 128000 tokens"),
        ProviderHTTPError(400, "context_length_exceeded"),
        ProviderHTTPError(413, "request entity too large"),
        ProviderStreamError("input is too long for requested model"),
    ],
)
def test_prompt_too_long_answers_are_recognised(error: Any) -> None:
    assert is_prompt_too_long(error)


@pytest.mark.parametrize(
    "error",
    [
        ProviderHTTPError(400, "tools.0.name: invalid"),
        ProviderHTTPError(529, "overloaded: prompt is too long to schedule"),  # not a 400
        ProviderStreamError("the stream ended early"),
    ],
)
def test_other_errors_are_not_prompt_too_long(error: Any) -> None:
    assert not is_prompt_too_long(error)


# ------------------------------------------------------------------ elision


def _call(call_id: str, name: str, **args: Any) -> AssistantMessage:
    return AssistantMessage(content=[ToolCallPart(call_id=call_id, name=name, args=args)])


def _result(call_id: str, name: str, text: str, image: bool = False) -> ToolResultMessage:
    content: list[Any] = [TextPart(text)]
    if image:
        content.append(ImagePart("image/png", "AAAA"))
    return ToolResultMessage(call_id=call_id, name=name, content=content)


def _session(steps: list[tuple[str, dict[str, Any]]]) -> list[Message]:
    messages: list[Message] = [UserMessage(content=[TextPart("go")])]
    for n, (name, args) in enumerate(steps):
        messages.append(_call(f"c{n}", name, **args))
        image = name == "browser_screenshot"
        messages.append(_result(f"c{n}", name, f"page {n} " + "y" * 4_000, image))
    return messages


def _text(message: Message) -> str:
    return " ".join(p.text for p in message.content if isinstance(p, TextPart))


def _elided(messages: list[Message], high: int = 0, low: int = 0) -> list[Message]:
    return elision.elide(messages, elision.Marks(high=high, low=low), message_tokens)


def test_superseded_reads_of_a_tab_become_notes_and_pairing_is_unchanged() -> None:
    messages = _session(
        [("browser_snapshot", {}), ("browser_read", {}), ("browser_snapshot", {"tabId": 2}),
         ("browser_click", {"ref": "e1"}), ("browser_snapshot", {})]
    )  # fmt: skip
    out = _elided(messages)
    assert len(out) == len(messages)
    assert [type(m) for m in out] == [type(m) for m in messages]
    assert [getattr(m, "call_id", None) for m in out] == [
        getattr(m, "call_id", None) for m in messages
    ]
    texts = [_text(m) for m in out if isinstance(m, ToolResultMessage)]
    assert "elided" in texts[0] and "elided" in texts[1]  # the active tab, read again later
    assert texts[2].startswith("page 2")  # tab 2 was never read again
    assert texts[3].startswith("page 3") and texts[4].startswith("page 4")  # a click; the newest
    check_request(ModelRequest(model="m", system="", messages=out))


def test_selecting_another_tab_makes_a_read_without_tab_id_another_tabs() -> None:
    messages = _session(
        [("browser_snapshot", {}), ("browser_tab_select", {"tabId": 5, "focus": True}),
         ("browser_snapshot", {}), ("browser_snapshot", {"tabId": 5})]
    )  # fmt: skip
    texts = [_text(m) for m in _elided(messages) if isinstance(m, ToolResultMessage)]
    assert texts[0].startswith("page 0")  # the first tab's only snapshot
    assert "elided" in texts[2]  # tab 5 by selection, read again by id


def test_a_read_after_switching_in_the_background_is_not_taken_for_the_switched_tab() -> None:
    messages = _session(
        [("browser_snapshot", {}), ("browser_tab_select", {"tabId": 5}), ("browser_snapshot", {}),
         ("browser_snapshot", {"tabId": 5})]
    )  # fmt: skip
    texts = [_text(m) for m in _elided(messages) if isinstance(m, ToolResultMessage)]
    assert texts[2].startswith("page 2")  # the active tab stayed: not tab 5's earlier read


def test_only_the_latest_screenshots_keep_their_images() -> None:
    messages = _session([("browser_screenshot", {})] * 12)
    out = _elided(messages, high=10**9)  # no size pressure: the image cap alone
    with_images = [
        m for m in out if isinstance(m, ToolResultMessage) and any(
            isinstance(p, ImagePart) for p in m.content)
    ]  # fmt: skip
    assert len(with_images) <= elision.MAX_IMAGES
    assert out[-1] is messages[-1]  # the newest keeps its image
    stripped = [m for m in out if isinstance(m, ToolResultMessage) and "image elided" in _text(m)]
    assert stripped and all(_text(m).startswith("page") for m in stripped)  # text kept


def test_below_the_high_water_mark_nothing_changes() -> None:
    messages = _session([("browser_snapshot", {})] * 5)
    out = _elided(messages, high=10**9)
    assert all(a is b for a, b in zip(out, messages, strict=True))


def test_elision_is_a_pure_function_and_rewrites_history_only_at_flushes() -> None:
    steps: list[tuple[str, dict[str, Any]]] = [("browser_snapshot", {}), ("browser_read", {})]
    high, low = 8_000, 3_000
    requests = [_elided(_session(steps * n), high, low) for n in range(1, 21)]
    assert requests[-1] == _elided(_session(steps * 20), high, low)  # same input, same output
    rewrites = 0
    for previous, current in itertools.pairwise(requests):
        if current[: len(previous)] != previous:
            rewrites += 1
            # a rewrite is a flush: the request after it is back under the high-water mark
            assert sum(message_tokens(m) for m in current) <= high + 2_100
    # each step adds about 2,000 tokens: a flush every few steps, not at every request
    assert 2 <= rewrites <= 8


def _snapshots(count: int, tab_id: int | None = 1) -> list[Message]:
    """``count`` snapshots of one tab (each result names its tab), ~1,000 tokens each."""
    messages: list[Message] = [UserMessage(content=[TextPart("go")])]
    for n in range(count):
        messages.append(_call(f"c{n}", "browser_snapshot"))
        result = _result(f"c{n}", "browser_snapshot", f"page {n} " + "y" * 4_000)
        messages.append(msgspec.structs.replace(result, tab_id=tab_id))
    return messages


def _changed(previous: list[Message], current: list[Message]) -> list[int]:
    """Where ``current`` differs from ``previous`` (over the messages both have)."""
    return [i for i, (a, b) in enumerate(zip(previous, current, strict=False)) if a != b]


def _elided_results(messages: list[Message]) -> list[int]:
    """The step numbers whose result is a note."""
    results = [m for m in messages if isinstance(m, ToolResultMessage)]
    return [n for n, m in enumerate(results) if "elided" in _text(m)]


def test_the_tab_a_result_names_makes_reads_with_and_without_tab_id_one_tabs() -> None:
    messages = _session([("browser_snapshot", {}), ("browser_snapshot", {"tabId": 7})])
    assert _elided_results(_elided(messages)) == []  # the active tab and tab 7: two tabs
    named = [
        msgspec.structs.replace(m, tab_id=7) if isinstance(m, ToolResultMessage) else m
        for m in messages
    ]
    assert _elided_results(_elided(named)) == [0]  # both results say they read tab 7


def test_a_flush_elides_the_newest_first_down_to_the_low_mark_and_older_stays() -> None:
    marks = elision.Marks(high=12_000, low=6_000)
    requests = [elision.elide(_snapshots(n), marks, message_tokens) for n in range(1, 40)]
    first_flush = next(k for k, r in enumerate(requests) if _elided_results(r))
    elided = _elided_results(requests[first_flush])
    assert elided[-1] == first_flush - 1  # the one the newest supersedes ...
    assert elided == list(range(elided[0], first_flush))  # ... and the ones before it, newest
    assert elided[0] > 0  # first, only as far as the low mark needs: the oldest stay (cold)
    assert sum(message_tokens(m) for m in requests[first_flush]) <= marks.low
    cold = [n for n in range(elided[0]) if n not in elided]
    breaks = []
    for previous, current in itertools.pairwise(requests):
        changed = _changed(previous, current)
        if changed:
            breaks.append(changed[0])
        assert all(n not in _elided_results(current) for n in cold)  # never elided later
        assert sum(message_tokens(m) for m in current) <= marks.high + 1_100
    assert breaks == sorted(breaks) and len(breaks) >= 3  # each flush breaks later


def test_after_a_compaction_the_first_flush_elides_everything_superseded() -> None:
    marks = elision.Marks(high=12_000, low=6_000)
    after = msgspec.structs.replace(marks, after_compaction=True)
    first = _elided_results(elision.elide(_snapshots(12), marks, message_tokens))
    assert first and first[0] > 0  # newest first, down to the low mark
    everything = _elided_results(elision.elide(_snapshots(12), after, message_tokens))
    assert everything == list(range(11))  # all but the newest
    later = _elided_results(elision.elide(_snapshots(30), after, message_tokens))
    assert later[:11] == everything and later[11] > 11  # then newest first again


def test_a_later_screenshot_of_the_same_tab_supersedes_an_image() -> None:
    messages = _session([("browser_screenshot", {}), ("browser_screenshot", {"tabId": 4}),
                         ("browser_screenshot", {})])  # fmt: skip
    out = _elided(messages)
    results = [m for m in out if isinstance(m, ToolResultMessage)]
    images = [any(isinstance(p, ImagePart) for p in m.content) for m in results]
    assert images == [False, True, True]  # tab 4's only screenshot keeps its image
    assert _text(results[0]).startswith("page 0") and "image elided" in _text(results[0])


def test_a_flushing_request_hints_the_stable_part_the_previous_one_wrote() -> None:
    marks = elision.Marks(high=12_000, low=6_000)
    elider = elision.Elider()
    prefix = _snapshots(0)
    whole = _snapshots(40)
    hints: list[int] = []
    outputs: list[list[Message]] = []
    for n in range(1, 41):
        elided = elider.elide(prefix, whole[len(prefix) : 1 + 2 * n], marks, message_tokens)
        outputs.append(elided.messages)
        hints.append(elided.stable)
    for k in range(1, len(outputs)):
        previous, current = outputs[k - 1], outputs[k]
        assert current[: hints[k - 1]] == previous[: hints[k - 1]]  # a hint holds
        changed = _changed(previous, current)
        if changed:  # a flush: the hint is the previous request's, before the change
            assert hints[k] == min(hints[k - 1], hints[k]) <= changed[0]
    assert max(hints) > len(whole) // 2  # and moves on after it


@pytest.mark.parametrize("seed", range(12))
def test_hints_hold_and_images_stay_capped_on_random_sessions(seed: int) -> None:
    """Random mixes of reads and screenshots of a few tabs: what each request calls stable
    is what every later request sends, and no request keeps more than ``MAX_IMAGES``."""
    rng = random.Random(seed)
    tools = ["browser_snapshot", "browser_read", "browser_screenshot", "browser_scroll"]
    steps = [(rng.choice(tools), {"tabId": rng.randint(1, 4)}) for _ in range(120)]
    whole = _session(steps)
    marks = elision.Marks(high=rng.randint(6_000, 30_000), low=rng.randint(2_000, 6_000))
    outputs = [elision.Elider().elide(whole[: 1 + 2 * n], [], marks, message_tokens) for n in
               range(1, len(steps) + 1)]  # fmt: skip
    for previous, current in itertools.pairwise(outputs):
        assert current.messages[: previous.stable] == previous.messages[: previous.stable]
    for out in outputs:
        images = [m for m in out.messages if isinstance(m, ToolResultMessage) and any(
            isinstance(p, ImagePart) for p in m.content)]  # fmt: skip
        assert len(images) <= elision.MAX_IMAGES


# ------------------------------------------------------------------ compaction plan


def _item(n: int, kind: str, **fields: Any) -> ItemRecord:
    return ItemRecord(
        id=f"i{n}", thread_id="t", parent_id=f"i{n - 1}" if n else None, turn_id="u",
        kind=kind, created_at=n, **fields,
    )  # fmt: skip


def _branch() -> list[ItemRecord]:
    items = [_item(0, "user", text="find prices")]
    for step in range(10):
        n = len(items)
        items.append(_item(n, "assistant", text=f"step {step}"))
        items.append(
            _item(n + 1, "toolCall", call_id=f"c{step}", name="browser_read", args={},
                  batch_item_id=f"i{n}", batch_index=0, status="succeeded",
                  result={"content": "z" * 4_000, "isError": False})
        )  # fmt: skip
        if step == 5:
            items.append(_item(n + 2, "notice", text="retrying", extra={"code": "x"}))
    return items


def test_the_plan_keeps_whole_batches_and_a_tail_within_budget() -> None:
    region = _branch()
    cost = item_cost({f"c{n}": 1_000 for n in range(10)})
    covered = plan(region, cost, tail_budget=3_500)
    assert covered is not None
    kept = covered.region[covered.cut :]
    assert kept[0].kind == "assistant"  # never between a call and its result
    assert sum(cost(item) for item in kept) <= 3_500
    assert all(item.kind != "notice" for item in covered.region)
    assert covered.covered[0].kind == "user"


def test_nothing_to_plan_when_the_branch_is_one_message() -> None:
    assert plan([_item(0, "user", text="x" * 100_000)], item_cost({}), 10) is None


def test_a_tail_that_never_fits_still_keeps_the_last_batch() -> None:
    region = _branch()
    covered = plan(region, item_cost({f"c{n}": 50_000 for n in range(10)}), tail_budget=10)
    assert covered is not None
    assert [i.kind for i in covered.region[covered.cut :]] == ["assistant", "toolCall"]


def test_transcript_clips_results_and_drops_the_oldest_past_its_room() -> None:
    text = transcript(_branch(), max_chars=100_000)
    assert "User: find prices" in text and "more chars]" in text and "retrying" not in text
    short = transcript(_branch(), max_chars=3_000)
    assert len(short) <= 3_100 and "earlier entries omitted" in short and "step 9" in short


def test_the_users_words_are_carried_verbatim_into_every_summary() -> None:
    said = user_messages(["first ask"], [_item(0, "user", text="second ask")])
    assert said == ["first ask", "second ask"]
    assert summary_text("S", said).endswith("- first ask\n- second ask")
    assert summary_text("S", []) == "S"


def test_the_resumed_pass_of_a_run_is_exactly_the_whole_pass() -> None:
    steps: list[tuple[str, dict[str, Any]]] = [
        ("browser_snapshot", {}), ("browser_screenshot", {}), ("browser_read", {"tabId": 3})
    ]  # fmt: skip
    prefix = _session(steps * 6)
    elider = elision.Elider()
    marks = elision.Marks(high=9_000, low=6_000)
    for n in range(1, 16):
        whole = _session(steps * (6 + n))
        current = whole[len(prefix) :]
        elided = elider.elide(prefix, current, marks, message_tokens)
        assert elided.messages == _elided(whole, marks.high, marks.low)
        assert elided.stable == elision.Elider().elide(whole, [], marks, message_tokens).stable
        assert elided.size == sum(message_tokens(m) for m in elided.messages)
