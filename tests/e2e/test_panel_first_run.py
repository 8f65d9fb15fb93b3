"""Issue 34: the first run in the panel. With no provider variables and no settings the
panel opens on the setup, not the chat; a message typed before the setup is kept and
creates no thread; a wrong key is said next to the key field ("The server refused this
key.") with the server's own words under Details; a model on this computer is found by
the host's probe and chosen from its list, "Test connection" says the model and latency,
and one click sends the kept message, which the local model answers. Each step is
screenshot at 360 px, light and dark, and scanned by axe."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import expect
from tests.support.local_model import MODELS, REFUSAL, serve_local_model

from .harness import Browser
from .panel_kit import both_schemes, thread_list


def test_from_the_welcome_to_a_first_answer(launch_profile: Callable[..., Browser]) -> None:
    with serve_local_model() as (port, seen):
        server = f"http://127.0.0.1:{port}/v1"
        browser = launch_profile(without_model=True, env={"PANELOT_LOCAL_MODEL_PORTS": str(port)})
        panel = browser.open_panel()
        expect(panel.get_by_text("Connected")).to_be_visible()
        setup = panel.get_by_role("region", name="Set up a model")
        expect(setup).to_be_visible()
        expect(panel.get_by_role("button", name="Settings")).to_have_text("Settings")
        both_schemes(panel, "first-run-welcome")

        # a message typed before the setup is kept, in the composer too, and creates nothing
        setup.get_by_role("button", name="Not now").click()
        message = panel.get_by_role("textbox", name="Message")
        message.fill("hello there")
        message.press("Enter")
        expect(setup).to_be_visible()
        expect(setup.get_by_text("Your message is kept")).to_contain_text("hello there")
        threads = panel.get_by_role("navigation", name="Threads").get_by_role("listitem")
        expect(threads).to_have_count(0)

        # a wrong key: said next to the key field, the server's words under Details
        setup.get_by_role("radio", name="Use another OpenAI-compatible server").check()
        setup.get_by_role("textbox", name="Server URL", exact=True).fill(server)
        setup.get_by_role("textbox", name="API key", exact=True).fill("sk-wrong")
        setup.get_by_role("textbox", name="Model", exact=True).fill("llama3.1")
        setup.get_by_role("button", name="Test connection").click()
        key = setup.get_by_role("textbox", name="API key", exact=True)
        expect(key).to_have_accessible_description(re.compile("The server refused this key"))
        expect(key).to_have_attribute("aria-invalid", "true")
        setup.get_by_text("Details").click()
        expect(setup.get_by_text(REFUSAL, exact=False)).to_be_visible()
        assert "sk-wrong" not in panel.content()  # the key is not kept in the page
        both_schemes(panel, "first-run-bad-key")

        # a model on this computer: the host found the server; its models are a list
        setup.get_by_role("radio", name="Use a model on this computer").check()
        expect(setup.get_by_role("textbox", name="Server URL", exact=True)).to_have_value(server)
        model = setup.get_by_role("combobox", name="Model", exact=True)
        expect(model.get_by_role("option")).to_have_text(sorted(MODELS))
        model.select_option("qwen2.5-coder")
        both_schemes(panel, "first-run-local")
        setup.get_by_role("button", name="Test connection").click()
        connected = setup.get_by_text(re.compile(r"Connected: qwen2.5-coder answered in \d+ ms"))
        expect(connected).to_be_visible()
        connected.scroll_into_view_if_needed()
        # the setup card said where the key and the requests go: no second warning here
        expect(panel.get_by_text("Permissions widened")).to_have_count(0)
        both_schemes(panel, "first-run-connected")

        # one click sends the kept message; the local model answers it
        setup.get_by_role("button", name="Send “hello there”").click()
        log = panel.get_by_role("list", name="Conversation")
        expect(log.get_by_text("Hello from qwen2.5-coder: hello there")).to_be_visible()
        expect(message).to_have_value("")
        expect(thread_list(panel).get_by_role("listitem")).to_have_count(1)
        assert ("GET", "/v1/models") in seen and ("POST", "/v1/chat/completions") in seen
        both_schemes(panel, "first-run-answered")
