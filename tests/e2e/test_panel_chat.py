"""Chat (issue 13, item 2): Markdown answers sanitised, code blocks with copy, tool cards
(with their duration, also when loaded from history), model and tool text with HTML shown
as text and never run; item 6: usage per turn (every turn of a reopened thread) and per
thread, an unknown price shown as unknown."""

from __future__ import annotations

import json
import re
from datetime import datetime

from playwright.sync_api import expect
from tests.providers.streams import anthropic_sse

from .fake_model import (
    FakeAnthropic,
    Reply,
    message_end,
    text_events,
    text_reply,
    tool_use_reply,
)
from .harness import Browser
from .pages import serve_pages
from .panel_kit import both_schemes, connected, log, rpc, send, snapshot, thread_list

# not "prompt is too long": the engine compacts and retries that one (context window)
BAD_REQUEST = {"type": "invalid_request_error", "message": "max_tokens: must be positive"}
HOSTILE = '<script>window.__pwned = 1</script> and <img src=x onerror="window.__pwned = 2">'


def test_markdown_code_copy_tool_cards_and_html_shown_as_text(
    browser: Browser, model: FakeAnthropic
) -> None:
    # a page whose title carries HTML reaches the panel in a tool result
    page = browser.context.new_page()
    page.goto("about:blank")
    page.evaluate("t => { document.title = t }", HOSTILE)
    answer = (
        "Here is **bold** and a list:\n\n- one\n- two\n\n"
        "```python\nprint('hi')\n```\n\n" + HOSTILE + "\n"
    )
    model.plan(
        tool_use_reply("toolu_1", "browser_tabs_list", {}),
        text_reply([answer[:20], answer[20:60], answer[60:]], delay_s=0.05),
    )
    panel = browser.open_panel()
    connected(panel)
    send(panel, "List my tabs")
    conversation = log(panel)
    answer_item = conversation.get_by_role("listitem").filter(has_text="Here is bold").first
    expect(answer_item).to_contain_text("print('hi')")
    expect(answer_item.locator("strong")).to_have_text("bold")
    expect(answer_item.get_by_role("listitem")).to_have_count(2)
    # the HTML in the model's text is shown as text and nothing ran
    expect(answer_item).to_contain_text("<script>window.__pwned = 1</script>")
    expect(answer_item).to_contain_text('<img src=x onerror="window.__pwned = 2">')
    # the step, folded under the turn's line: it says what it did (a success needs no
    # status word), and the tabs it listed show their titles (HTML) as text
    conversation.get_by_role("button", name="1 step").click()
    card = conversation.get_by_role("listitem").filter(has_text="Listed the open tabs")
    expect(card).not_to_contain_text("succeeded")
    card.locator("summary").first.click()
    expect(card.get_by_role("list", name="Open tabs")).to_contain_text("<img src=x onerror=")
    assert panel.evaluate("window.__pwned") is None
    # the only images are the tabs' icons, from Chrome's favicon cache
    icons = panel.locator("#log img").evaluate_all("(imgs) => imgs.map((i) => i.src)")
    assert icons and all(
        f"chrome-extension://{panel.url.split('/')[2]}/_favicon/" in s for s in icons
    )
    assert panel.locator("#log script").count() == 0
    # code block with a working copy button
    panel.evaluate(
        "() => { const write = navigator.clipboard.writeText.bind(navigator.clipboard);"
        " navigator.clipboard.writeText = t => { window.__copied = t; return write(t); }; }"
    )
    answer_item.hover()
    answer_item.get_by_role("button", name="Copy code").click()
    expect(answer_item.get_by_role("button", name="Copied")).to_be_visible()
    assert panel.evaluate("window.__copied") == "print('hi')\n"
    # usage: per turn (after its last item) and per thread, with the stored figures
    stored = snapshot(panel)
    assert stored["turn"]["status"] == "completed"
    usage = answer_item.get_attribute("data-usage") or ""
    assert re.fullmatch(r"This turn: \$\d+\.\d{4}", usage), usage  # money, not tokens
    tokens = answer_item.get_attribute("data-tokens") or ""
    assert f"{stored['turn']['usage']['inputTokens']} in" in tokens, tokens
    expect(panel.locator("#thread-usage")).to_contain_text("This thread:")
    kinds = [i["kind"] for i in stored["items"]]
    assert kinds == ["user", "assistant", "toolCall", "assistant"] or kinds[-1] == "assistant"
    both_schemes(panel, "chat")


def test_unknown_price_is_shown_as_unknown_never_zero(
    browser: Browser, model: FakeAnthropic
) -> None:
    panel = browser.open_panel()
    connected(panel)
    rpc(panel, "settings.update", {"commandId": "m1", "model": "my-local-model"})
    # the keyboard: Shift+Enter adds a line, Enter sends
    box = panel.get_by_role("textbox", name="Message")
    box.press_sequentially("hello")
    box.press("Shift+Enter")
    box.press_sequentially("world")
    box.press("Enter")
    expect(log(panel).get_by_role("listitem").nth(1)).to_have_text("Echo: hello\nworld")
    expect(box).to_have_value("")
    stored = snapshot(panel)
    assert stored["items"][0]["text"] == "hello\nworld"
    assert stored["thread"]["stats"]["costUsd"] is None
    expect(panel.locator("#thread-usage")).to_contain_text("cost unknown")
    threads = thread_list(panel)
    expect(threads.get_by_role("button", name="hello")).to_contain_text("cost unknown")
    assert "$0.0000" not in (panel.locator("body").text_content() or "")


def _seconds(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def test_a_reopened_thread_shows_every_turns_usage_and_its_tool_durations(
    browser: Browser, model: FakeAnthropic
) -> None:
    panel = browser.open_panel()
    connected(panel)
    rpc(panel, "settings.update", {"commandId": "m1", "model": "my-local-model"})  # no price
    model.plan(tool_use_reply("toolu_h", "browser_tabs_list", {}), text_reply(["Two tabs."]))
    send(panel, "List my tabs")
    expect(log(panel).get_by_role("listitem").filter(has_text="Two tabs.")).to_be_visible()
    send(panel, "Thanks")
    expect(log(panel).get_by_role("listitem").filter(has_text="Echo: Thanks")).to_be_visible()
    # a new panel knows only what thread.open returns
    panel.reload()
    connected(panel)
    threads = thread_list(panel)
    threads.get_by_role("button", name="List my tabs").click()
    expect(log(panel).get_by_role("listitem").filter(has_text="Echo: Thanks")).to_be_visible()
    stored = snapshot(panel)
    assert [t["costUsd"] for t in stored["turns"]] == [None, None]
    shown = [
        panel.locator(f'#log > li[data-turn="{t["id"]}"][data-usage]').get_attribute("data-usage")
        for t in stored["turns"]
    ]
    assert shown == ["This turn: cost unknown"] * 2  # money, as people count; never $0.0000
    # the tokens stay at hand for who wants them, out of the way
    counts = stored["thread"]["stats"]
    header = panel.locator("#thread-usage")
    expect(header).to_have_text("This thread: cost unknown")
    expect(header).to_have_attribute(
        "title", re.compile(rf"{counts['inputTokens']} in · {counts['outputTokens']} out")
    )
    # the tool card's duration, from the times the host stored with the call
    (call,) = [i for i in stored["items"] if i["kind"] == "toolCall"]
    took = _seconds(call["endedAt"]) - _seconds(call["startedAt"])
    log(panel).get_by_role("button", name="1 step").first.click()
    card = log(panel).get_by_role("listitem").filter(has_text="Listed the open tabs")
    expect(card).to_contain_text(re.compile(rf"Listed the open tabs\s*{took:.1f} s"))
    assert "$0.0000" not in (panel.locator("body").text_content() or "")


def test_a_screenshot_result_is_a_thumbnail_that_opens_full_size(
    browser: Browser, model: FakeAnthropic
) -> None:
    with serve_pages() as site:
        page = browser.context.new_page()
        page.goto(f"{site}/shot")
        tab = browser.worker().evaluate(
            "async (s) => (await chrome.tabs.query({url: s + '/*'}))[0].id", site
        )
        model.plan(
            tool_use_reply("toolu_s", "browser_screenshot", {"tabId": tab}),
            text_reply(["I see the page."]),
        )
        panel = browser.open_panel()
        connected(panel)
        page.bring_to_front()  # a screenshot is of the visible tab
        panel.get_by_role("textbox", name="Message").fill("Look at my page")
        panel.get_by_role("button", name="Send", exact=True).press("Enter")
        expect(log(panel).get_by_role("listitem").last).to_have_text("I see the page.")
        log(panel).get_by_role("button", name="1 step").click()
        card = log(panel).get_by_role("listitem").filter(has_text="Took a screenshot")
        card.locator("summary").first.click()
        thumb = card.get_by_role("button", name="image 1 full size")
        expect(thumb).to_be_visible()
        thumb.click()
        viewer = panel.get_by_role("dialog")
        expect(viewer.get_by_role("img")).to_be_visible()
        size = viewer.get_by_role("img").evaluate("i => [i.naturalWidth, i.naturalHeight]")
        assert size[0] >= 300 and size[1] >= 300  # the full capture, not a thumbnail copy
        viewer.get_by_role("button", name="Close").click()
        expect(viewer).to_be_hidden()


def test_notices_and_errors_look_unlike_answers(browser: Browser, model: FakeAnthropic) -> None:
    # three failed tool calls in a row (a tool outside the catalog): the engine's
    # failure-streak notice; then a provider error ends the next turn as failed
    model.plan(
        *(tool_use_reply(f"toolu_{n}", "no_such_tool", {}) for n in range(3)),
        text_reply(["I will try something else."]),
    )
    panel = browser.open_panel()
    connected(panel)
    send(panel, "Try it")
    notice = log(panel).get_by_role("listitem").filter(has_text="Repeated failures")
    expect(notice).to_be_visible()
    answer = log(panel).get_by_role("listitem").last
    expect(answer).to_contain_text("I will try something else.")
    expect(answer).to_contain_text("3 steps failed.")  # the answer points out the failures
    stored = [i for i in snapshot(panel)["items"] if i["kind"] == "notice"]
    assert [n["code"] for n in stored] == ["change_approach"]
    # the panel says what happened; what the engine told the model stays with the model
    expect(notice).to_contain_text(
        "3 actions in a row failed. Panelot asked the model to try another way"
    )
    assert "Do not repeat them" in stored[0]["text"]
    expect(notice).not_to_contain_text("Do not repeat them")
    answer = log(panel).get_by_role("listitem").last
    colours = [e.evaluate("e => getComputedStyle(e).backgroundColor") for e in (notice, answer)]
    assert colours[0] != colours[1]  # a notice is set apart from an answer
    model.plan(
        Reply(
            status=400,
            body=[json.dumps({"type": "error", "error": BAD_REQUEST}).encode()],
            content_type="application/json",
        )
    )
    send(panel, "And now?")
    failed = panel.get_by_role("status").filter(has_text="This turn failed")
    expect(failed).to_be_visible()
    expect(failed).to_contain_text("max_tokens: must be positive")
    assert snapshot(panel)["turn"]["status"] == "failed"
    # the failure says what to do in plain words, and its button leads to the one setting
    expect(failed).to_contain_text("The model refused the length of answer Panelot asked for")
    both_schemes(panel, "notices")
    panel.get_by_role("button", name="Open Settings → Output limit").click()
    output = panel.get_by_role("spinbutton", name="Output limit")
    expect(output).to_be_visible()  # under Advanced, opened
    expect(output).to_be_focused()


def _thinking_then_text(thinking: str, text: str) -> Reply:
    start, *_ = text_events([])
    events = [
        start,
        anthropic_sse(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "thinking", "thinking": ""},
            }
        ),
        anthropic_sse(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "thinking_delta", "thinking": thinking},
            }
        ),
        anthropic_sse(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "signature_delta", "signature": "c2lnbmF0dXJl"},
            }
        ),
        anthropic_sse({"type": "content_block_stop", "index": 0}),
        anthropic_sse(
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "text", "text": ""},
            }
        ),
        anthropic_sse(
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "text_delta", "text": text},
            }
        ),
        anthropic_sse({"type": "content_block_stop", "index": 1}),
        *message_end("end_turn", 12),
    ]
    return Reply(body=list(events))


def test_thinking_is_folded_apart_from_the_answer(browser: Browser, model: FakeAnthropic) -> None:
    model.plan(_thinking_then_text("The user wants <b>two</b> facts.", "Two facts."))
    panel = browser.open_panel()
    connected(panel)
    send(panel, "Think first")
    answer = log(panel).get_by_role("listitem").filter(has_text="Two facts.")
    expect(answer.locator(".md")).to_have_text("Two facts.")
    thinking = answer.get_by_role("group").filter(has_text="Thinking")
    expect(thinking).to_be_visible()
    thinking.locator("summary").click()
    expect(thinking).to_contain_text("The user wants <b>two</b> facts.")  # text, not HTML
    assert answer.locator("b").count() == 0
    stored = next(i for i in snapshot(panel)["items"] if i["kind"] == "assistant")
    assert stored.get("thinking") == "The user wants <b>two</b> facts."
