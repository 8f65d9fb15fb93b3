"""Issue 24, item 2: `browser_upload_file` uploads only files the user picked for that call
on its approval card. The model names a ref, never a path; the card offers a file chooser
and no standing permission; the files go from the panel to the worker and into the page's
file input (here hidden behind a styled button, as sites do), never through the host. A
call with no files picked does nothing."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect
from tests.support.web import serve_html

from .fake_model import FakeAnthropic
from .harness import Browser, screenshot
from .tool_driver import by_ref, invoke, open_tab, plan_calls, start_turn, tool_results

PAGE = """<!doctype html><title>Upload</title>
<form><input type="file" id="file" hidden>
<button type="button" id="attach">Attach a file</button></form>
<p id="got">nothing yet</p>
<script>
  const input = document.getElementById("file");
  document.getElementById("attach").addEventListener("click", () => input.click());
  input.addEventListener("change", async () => {
    const file = input.files[0];
    document.getElementById("got").textContent = `${file.name}: ${await file.text()}`;
  });
</script>"""


def test_the_user_picks_the_file_on_the_card(
    browser: Browser, model: FakeAnthropic, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("hello from the user's disk", encoding="utf-8")
    with serve_html(lambda path: PAGE) as site:
        page, tab = open_tab(browser, f"{site}/")
        plan_calls(
            model,
            [
                ("browser_snapshot", {"tabId": tab}),
                ("browser_upload_file", by_ref(tab, "button", "Attach a file")),
            ],
            "Uploaded.",
        )
        panel = start_turn(browser, "Attach my notes")
        log = panel.get_by_role("list", name="Conversation")
        card = log.get_by_role("listitem").filter(has_text="Upload files you pick to the button")
        expect(card).to_be_visible()
        # only a one-time allow, once files are picked; no standing permission is offered
        allow = card.get_by_role("button", name="Allow once")
        expect(allow).to_be_disabled()
        # Allow once is the primary choice, beside Deny
        assert allow.evaluate("(b) => b.classList.contains('primary')")
        row = allow.evaluate(
            "(b) => [...b.parentElement.querySelectorAll('button')].map((x) => x.textContent)"
        )
        assert row == ["Allow once", "Deny"], row
        expect(card.get_by_role("button", name="Allow for this site")).to_have_count(0)
        expect(card.get_by_role("button", name="Allow for this thread")).to_have_count(0)
        card.get_by_label("Files to upload").set_input_files(str(notes))
        expect(allow).to_be_enabled()
        screenshot(panel, "panel-upload-card")
        allow.click()
        expect(log.get_by_role("listitem").filter(has_text="Uploaded.")).to_be_visible()
        expect(page.locator("#got")).to_have_text("notes.txt: hello from the user's disk")
        said = tool_results(model.bodies[-1])[-1]
        assert "Gave notes.txt (26 bytes)" in said and "the file input of its form" in said, said
        assert str(tmp_path) not in said  # the model learns the name, never where it was


STAGE = """([id, params]) => new Promise((resolve) => {
  const port = chrome.runtime.connect({ name: "panel" });
  port.onMessage.addListener((m) => { if (m.id === id) { port.disconnect(); resolve(m); } });
  port.postMessage({ jsonrpc: "2.0", id, method: "$/files.stage", params });
})"""
FILE = {"name": "a.txt", "type": "text/plain", "size": 2, "data": "aGk="}  # "hi"


def test_only_files_staged_for_this_very_call_are_uploaded(browser: Browser) -> None:
    with serve_html(lambda path: PAGE) as site:
        page, tab = open_tab(browser, f"{site}/")
        panel = browser.open_panel()
        outline = invoke(browser, "browser_snapshot", {"tabId": tab})["content"]
        ref = outline.split('button "Attach a file" [', 1)[1].split("]", 1)[0].split()[0]
        upload = {"tabId": tab, "ref": ref}
        # nothing picked: nothing done
        answer = invoke(browser, "browser_upload_file", upload)
        assert answer["isError"] is True
        assert "the user picked no files for this call" in str(answer), answer
        # picked for another call: not this one's
        staged = panel.evaluate(STAGE, [1, {"callId": "another", "files": [FILE]}])
        assert staged["result"] == {"staged": 1}, staged
        assert invoke(browser, "browser_upload_file", upload)["isError"] is True
        expect(page.locator("#got")).to_have_text("nothing yet")
        # bad input from a panel is refused with a reason
        for bad in ([], [{"name": "x"}], "a.txt"):
            refused = panel.evaluate(STAGE, [2, {"callId": "direct", "files": bad}])
            assert refused["error"]["data"]["kind"] == "invalid_params", refused
        # picked for this call ("direct" is the tool driver's callId): given, once
        panel.evaluate(STAGE, [3, {"callId": "direct", "files": [FILE]}])
        done = invoke(browser, "browser_upload_file", upload)
        assert done["isError"] is False and "Gave a.txt (2 bytes)" in done["content"], done
        expect(page.locator("#got")).to_have_text("a.txt: hi")
        again = invoke(browser, "browser_upload_file", upload)
        assert again["isError"] is True and "picked no files" in str(again)
