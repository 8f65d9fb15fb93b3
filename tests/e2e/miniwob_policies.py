"""Scripted policies for MiniWoB++ tasks (``bench/bench_miniwob.py``, and the e2e tests
that run a task through the tools directly): each plays the model. It
sees only the task's instruction (as ``browser_read`` showed it) and the tool results, and
uses only the browser tools; it never reads the page another way.

A policy is a generator: it yields a tool call ``(name, args)`` and is sent the result's
text; it returns its final answer. ``tabId`` is added by the runner. A policy that cannot
go on raises ``Stuck`` with the cause, which the benchmark prints.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator
from datetime import datetime

Call = tuple[str, dict[str, object]]
Policy = Generator[Call, str, str]


class Stuck(Exception):
    """The policy found no way on; the message is the cause."""


def task_text(read: str) -> str:
    """The instruction (`#query`) from browser_read's Markdown of a task page."""
    found = re.search(r"Source: [^\n]+\n\n(.+?)(?:\n\n|\n?</untrusted-page-content>|$)", read, re.S)
    text = found.group(1) if found else read
    return re.sub(r"\\(.)", r"\1", text.replace("**", "")).replace("\n", " ").strip()


def ref(outline: str, role: str, name: str | None = None) -> str:
    """The ref of the first line ``- role "name" ... [eN``; ``Stuck`` when there is none."""
    named = rf' "{re.escape(name)}"' if name is not None else ""
    found = re.search(rf"^\s*- {re.escape(role)}{named}[^\n]*?\[(e\d+)", outline, re.M)
    if found is None:
        raise Stuck(f'no {role} "{name}" in the snapshot')
    return found.group(1)


def ref_named(outline: str, name: str) -> str:
    """The ref of the first line of any role named ``name``."""
    found = re.search(rf'^\s*- [^\n"]+ "{re.escape(name)}"[^\n]*?\[(e\d+)', outline, re.M)
    if found is None:
        raise Stuck(f'nothing named "{name}" in the snapshot')
    return found.group(1)


def quoted(task: str) -> list[str]:
    return re.findall(r'"([^"]*)"', task)


def click_button(task: str) -> Policy:
    outline = yield ("browser_snapshot", {})
    yield ("browser_click", {"ref": ref(outline, "button", quoted(task)[0])})
    return "Done."


def click_link(task: str) -> Policy:
    outline = yield ("browser_snapshot", {})
    yield ("browser_click", {"ref": ref_named(outline, quoted(task)[0])})  # a link or a span
    return "Done."


def click_checkboxes(task: str) -> Policy:
    wanted = re.search(r"Select (.*) and click Submit", task)
    if wanted is None:
        raise Stuck(f"unexpected task: {task}")
    names = [] if wanted.group(1) == "nothing" else re.split(r", (?:and )?| and ", wanted.group(1))
    outline = yield ("browser_snapshot", {})
    for name in names:
        yield ("browser_click", {"ref": ref(outline, "checkbox", name.strip())})
    yield ("browser_click", {"ref": ref(outline, "button", "Submit")})
    return "Done."


def click_option(task: str) -> Policy:
    wanted = re.search(r"Select (.*) and click Submit", task)
    if wanted is None:
        raise Stuck(f"unexpected task: {task}")
    outline = yield ("browser_snapshot", {})
    yield ("browser_click", {"ref": ref(outline, "radio", wanted.group(1))})
    yield ("browser_click", {"ref": ref(outline, "button", "Submit")})
    return "Done."


def click_tab(task: str) -> Policy:
    number = re.search(r"Tab #(\d)", task)
    if number is None:
        raise Stuck(f"unexpected task: {task}")
    outline = yield ("browser_snapshot", {})
    yield ("browser_click", {"ref": ref(outline, "tab", f"Tab #{number.group(1)}")})
    return "Done."


def click_tab_2(task: str) -> Policy:
    name = quoted(task)[0]
    for tab in ("Tab #1", "Tab #2", "Tab #3"):
        outline = yield ("browser_snapshot", {})
        if f'"{name}"' in outline:
            yield ("browser_click", {"ref": ref_named(outline, name)})
            return "Done."
        yield ("browser_click", {"ref": ref(outline, "tab", tab)})
    outline = yield ("browser_snapshot", {})
    yield ("browser_click", {"ref": ref_named(outline, name)})
    return "Done."


def navigate_tree(task: str) -> Policy:
    named = re.search(r"named (.+?)\.$", task)
    if named is None:
        raise Stuck(f"unexpected task: {task}")
    name = named.group(1).strip('"')
    for _ in range(12):
        outline = yield ("browser_snapshot", {})
        if f'"{name}"' in outline:
            yield ("browser_click", {"ref": ref(outline, "span", name)})
            return "Done."
        closed = re.search(r'\[(e\d+)\] \(class "hitarea[^"]*expandable-hitarea', outline)
        if closed is None:
            raise Stuck(f"{name} is not in the tree and no folder is closed")
        yield ("browser_click", {"ref": closed.group(1)})
    raise Stuck("the tree did not open")


def email_inbox_delete(task: str) -> Policy:
    sender = re.search(r"email by (.+?) and", task)
    if sender is None:
        raise Stuck(f"unexpected task: {task}")
    outline = yield ("browser_snapshot", {})
    yield ("browser_click", {"ref": ref_named(outline, sender.group(1))})
    outline = yield ("browser_snapshot", {})
    trash = re.search(r'\[(e\d+)\] \(class "trash"\)', outline)
    if trash is None:
        raise Stuck("no trash icon in the open email")
    yield ("browser_click", {"ref": trash.group(1)})
    return "Done."


POSITIONS = {"top": 1, "bottom": 5, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5}


def drag_items(task: str) -> Policy:
    found = re.search(r"Drag (\w+) (.+)\.", task)
    if found is None:
        raise Stuck(f"unexpected task: {task}")
    name, where = found.groups()
    outline = yield ("browser_snapshot", {})
    items = re.findall(r'- listitem "(\w+)" \[(e\d+)', outline)
    names = [n for n, _ in items]
    if name not in names:
        raise Stuck(f"{name} is not among the list's items")
    at = names.index(name) + 1
    if "up by one" in where:
        target = at - 1
    elif "down by one" in where:
        target = at + 1
    else:
        target = next(v for k, v in POSITIONS.items() if k in where)
    yield ("browser_drag", {"ref": items[at - 1][1], "toRef": items[target - 1][1]})
    return "Done."


def enter_text(task: str) -> Policy:
    outline = yield ("browser_snapshot", {})
    yield ("browser_type", {"ref": ref(outline, "textbox"), "text": quoted(task)[0]})
    yield ("browser_click", {"ref": ref(outline, "button", "Submit")})
    return "Done."


def enter_date(task: str) -> Policy:
    found = re.search(r"Enter (\d\d/\d\d/\d{4})", task)
    if found is None:
        raise Stuck(f"unexpected task: {task}")
    iso = datetime.strptime(found.group(1), "%m/%d/%Y").strftime("%Y-%m-%d")
    outline = yield ("browser_snapshot", {})
    yield ("browser_type", {"ref": ref(outline, "date"), "text": iso})
    yield ("browser_click", {"ref": ref(outline, "button", "Submit")})
    return "Done."


def enter_time(task: str) -> Policy:
    found = re.search(r"Enter (\d{1,2}:\d\d ?[AP]M)", task)
    if found is None:
        raise Stuck(f"unexpected task: {task}")
    hhmm = datetime.strptime(found.group(1).replace(" ", ""), "%I:%M%p").strftime("%H:%M")
    outline = yield ("browser_snapshot", {})
    yield ("browser_type", {"ref": ref(outline, "time"), "text": hhmm})
    yield ("browser_click", {"ref": ref(outline, "button", "Submit")})
    return "Done."


def focus_text(task: str) -> Policy:
    outline = yield ("browser_snapshot", {})
    yield ("browser_click", {"ref": ref(outline, "textbox")})
    return "Done."


def login_user(task: str) -> Policy:
    user, password = quoted(task)[:2]
    outline = yield ("browser_snapshot", {})
    yield ("browser_type", {"ref": ref(outline, "textbox"), "text": user})
    yield ("browser_type", {"ref": ref(outline, "textbox(password)"), "text": password})
    yield ("browser_click", {"ref": ref(outline, "button", "Login")})
    return "Done."


def click_collapsible(task: str) -> Policy:
    outline = yield ("browser_snapshot", {})
    header = re.search(r'- (?:heading\[3\]|h3|button|tab) "Section #\d+"[^\n]*?\[(e\d+)', outline)
    if header is None:
        raise Stuck("no section header to expand")
    yield ("browser_click", {"ref": header.group(1)})
    outline = yield ("browser_snapshot", {})
    yield ("browser_click", {"ref": ref(outline, "button", "Submit")})
    return "Done."


def click_dialog(task: str) -> Policy:
    outline = yield ("browser_snapshot", {})
    yield ("browser_click", {"ref": ref(outline, "button", "Close")})
    return "Done."


def use_autocomplete(task: str) -> Policy:
    parts = quoted(task)
    start, end = parts[0], (parts[1] if len(parts) > 1 else "")
    outline = yield ("browser_snapshot", {})
    field = ref(outline, "textbox")
    yield ("browser_type", {"ref": field, "text": start})
    yield ("browser_wait_for", {"timeMs": 500})
    outline = yield ("browser_snapshot", {})
    options = re.findall(r'- [^\n"]+ "([^"]+)" \[(e\d+)', outline)
    choice = next(
        (r for name, r in options if name.startswith(start) and name.endswith(end) and r != field),
        None,
    )
    if choice is None:
        raise Stuck(f"no suggestion starts with {start!r} and ends with {end!r}")
    yield ("browser_click", {"ref": choice})
    yield ("browser_click", {"ref": ref(outline, "button", "Submit")})
    return "Done."


ICON_OF = {"Reply": "reply", "Retweet": "retweet", "Like": "like"}


def social_media(task: str) -> Policy:
    found = re.search(r'user (@\w+), click on the "(.+?)" button', task)
    if found is None:
        raise Stuck(f"unexpected task: {task}")
    user, action = found.groups()
    page = yield ("browser_read", {})
    users = re.findall(r"(@\w+) \d+h ago", page)  # the posts, in order
    if user not in users:
        raise Stuck(f"{user} is not among the posts read")
    nth = users.index(user)
    outline = yield ("browser_snapshot", {})
    icon = ICON_OF.get(action, "more")
    icons = re.findall(rf'\[(e\d+)\] \(class "{icon}"\)', outline)
    if len(icons) != len(users):
        raise Stuck(f'{len(icons)} "{icon}" controls in the snapshot for {len(users)} posts')
    yield ("browser_click", {"ref": icons[nth]})
    if icon != "more":
        return "Done."
    outline = yield ("browser_snapshot", {})
    item = re.search(rf'- [^\n"]+ "{re.escape(action)}[^"]*" \[(e\d+)', outline)
    if item is None:
        raise Stuck(f'no "{action}" in the opened menu')
    yield ("browser_click", {"ref": item.group(1)})
    return "Done."


def click_test(task: str) -> Policy:
    outline = yield ("browser_snapshot", {})
    yield ("browser_click", {"ref": ref(outline, "button")})
    return "Done."


def click_test_2(task: str) -> Policy:
    which = re.search(r"button (\w+)\.", task)
    if which is None:
        raise Stuck(f"unexpected task: {task}")
    outline = yield ("browser_snapshot", {})
    yield ("browser_click", {"ref": ref(outline, "button", which.group(1))})
    return "Done."


def click_button_sequence(task: str) -> Policy:
    outline = yield ("browser_snapshot", {})
    for name in re.findall(r"button (\w+)", task):
        yield ("browser_click", {"ref": ref(outline, "button", name)})
    return "Done."


def enter_password(task: str) -> Policy:
    password = quoted(task)[0]
    outline = yield ("browser_snapshot", {})
    fields = re.findall(r"- textbox\(password\)[^\n]*?\[(e\d+)", outline)
    if len(fields) != 2:
        raise Stuck(f"{len(fields)} password fields, not 2")
    for field in fields:
        yield ("browser_type", {"ref": field, "text": password})
    yield ("browser_click", {"ref": ref(outline, "button", "Submit")})
    return "Done."


def choose_list(task: str) -> Policy:
    wanted = re.search(r"Select (.+) from the list", task)
    if wanted is None:
        raise Stuck(f"unexpected task: {task}")
    outline = yield ("browser_snapshot", {})
    yield ("browser_select_option", {"ref": ref(outline, "combobox"), "values": [wanted.group(1)]})
    yield ("browser_click", {"ref": ref(outline, "button", "Submit")})
    return "Done."


def click_scroll_list(task: str) -> Policy:
    wanted = re.search(r"Select (.+) from the scroll list", task)
    if wanted is None:
        raise Stuck(f"unexpected task: {task}")
    values = [v.strip() for v in re.split(r", (?:and )?| and ", wanted.group(1))]
    outline = yield ("browser_snapshot", {})
    yield ("browser_select_option", {"ref": ref(outline, "listbox"), "values": values})
    yield ("browser_click", {"ref": ref(outline, "button", "Submit")})
    return "Done."


def ordinal(word: str) -> int | None:
    """0 for "1st", 1 for "2nd", 11 for "12th"; None for anything else."""
    found = re.fullmatch(r"(\d+)(?:st|nd|rd|th)", word)
    return int(found.group(1)) - 1 if found else None


def focus_text_2(task: str) -> Policy:
    which = re.search(r"the (\w+) input textbox", task)
    index = ordinal(which.group(1)) if which else None
    if index is None:
        raise Stuck(f"unexpected task: {task}")
    outline = yield ("browser_snapshot", {})
    fields = re.findall(r"- textbox[^\n]*?\[(e\d+)", outline)
    yield ("browser_click", {"ref": fields[index]})
    return "Done."


def use_spinner(task: str) -> Policy:
    number = re.search(r"Select (-?\d+) with the spinner", task)
    if number is None:
        raise Stuck(f"unexpected task: {task}")
    target = int(number.group(1))
    outline = yield ("browser_snapshot", {})
    value = re.search(r'- spinbutton[^\n]*= "(-?\d+)"', outline)
    current = int(value.group(1)) if value else 0
    yield ("browser_click", {"ref": ref(outline, "spinbutton")})  # focus it
    key = "ArrowUp" if target > current else "ArrowDown"
    for _ in range(abs(target - current)):
        yield ("browser_press_key", {"key": key})
    yield ("browser_click", {"ref": ref(outline, "button", "Submit")})
    return "Done."


def find_word(task: str) -> Policy:
    which = re.search(r"Find the (\w+) word", task)
    index = ordinal(which.group(1)) if which else None
    if index is None:
        raise Stuck(f"unexpected task: {task}")
    page = yield ("browser_read", {})
    # the paragraph follows the instruction in the page's text
    body = re.search(r"press \"?Submit\"?\.?\s*\n\n(.+?)(?:\n\n|$)", page, re.S)
    words = re.findall(r"[\w']+", body.group(1) if body else "")
    if len(words) <= index:
        raise Stuck("the paragraph was not found in the page read")
    outline = yield ("browser_snapshot", {})
    yield (
        "browser_type",
        {"ref": ref(outline, "textbox"), "text": words[index]},
    )
    yield ("browser_click", {"ref": ref(outline, "button", "Submit")})
    return "Done."


def read_table(task: str) -> Policy:
    key = re.search(r"value of (.+?) into", task)
    if key is None:
        raise Stuck(f"unexpected task: {task}")
    page = yield ("browser_read", {})
    name = re.escape(key.group(1))
    row = re.search(rf"<td>\s*{name}\s*</td>\s*<td>\s*(.*?)\s*</td>", page) or re.search(
        rf"\|\s*{name}\s*\|\s*([^|]+?)\s*\|", page
    )
    if row is None:
        raise Stuck(f"no row {key.group(1)!r} in the table read")
    outline = yield ("browser_snapshot", {})
    yield ("browser_type", {"ref": ref(outline, "textbox"), "text": row.group(1)})
    yield ("browser_click", {"ref": ref(outline, "button", "Submit")})
    return "Done."


def scroll_text(task: str) -> Policy:
    outline = yield ("browser_snapshot", {})
    area = re.search(r"- textbox[^\n]*\[(e\d+)[^\n]*multiline", outline)
    if area is None:
        raise Stuck("no text area with text in the snapshot")
    region = yield ("browser_snapshot", {"ref": area.group(1)})  # the whole value
    value = re.search(r'= ("(?:[^"\\]|\\.)*")', region)
    if value is None:
        raise Stuck("the text area's value is not in its outline")
    words = re.findall(r"[\w']+", json.loads(value.group(1)))
    outline = yield ("browser_snapshot", {})  # the region's snapshot replaced the page's refs
    fields = re.findall(r"- textbox[^\n]*?\[(e\d+)", outline)
    area_now = re.search(r"- textbox[^\n]*\[(e\d+)[^\n]*multiline", outline)
    entry = next(f for f in fields if area_now is None or f != area_now.group(1))
    yield ("browser_type", {"ref": entry, "text": words[-1]})
    yield ("browser_click", {"ref": ref(outline, "button", "Submit")})
    return "Done."


def enter_text_2(task: str) -> Policy:
    found = re.search(r'Type "(.+?)" in (?:all )?(lower|upper) case', task)
    if found is None:
        raise Stuck(f"unexpected task: {task}")
    text = found.group(1).lower() if found.group(2) == "lower" else found.group(1).upper()
    outline = yield ("browser_snapshot", {})
    yield ("browser_type", {"ref": ref(outline, "textbox"), "text": text})
    yield ("browser_click", {"ref": ref(outline, "button", "Submit")})
    return "Done."


WIDGET_ROLES = {
    "button": "button",
    "checkbox": "checkbox",
    "radio": "radio",
    "text": "textbox",
    "textarea": "textbox",
}


def click_widget(task: str) -> Policy:
    kind = quoted(task)[0]
    outline = yield ("browser_snapshot", {})
    if kind == "textarea":
        line = next(
            (ln for ln in outline.splitlines() if "textbox" in ln and "multiline" in ln), None
        )
    else:
        role = WIDGET_ROLES.get(kind)
        line = next((ln for ln in outline.splitlines() if role and f"- {role}" in ln), None)
    found = re.search(r"\[(e\d+)", line or "")
    if found is None:
        raise Stuck(f'no "{kind}" widget in the snapshot')
    yield ("browser_click", {"ref": found.group(1)})
    return "Done."


def odd_or_even(task: str) -> Policy:
    page = yield ("browser_read", {})
    numbers = re.findall(r"^\s*(-?\d+)\s*$", page.replace("\\-", "-"), re.M)
    outline = yield ("browser_snapshot", {})
    odd = re.findall(r'- button "Odd" \[(e\d+)', outline)
    even = re.findall(r'- button "Even" \[(e\d+)', outline)
    if not numbers or len(numbers) != len(odd):
        raise Stuck(f"{len(numbers)} numbers read for {len(odd)} rows of buttons")
    for number, o, e in zip(numbers, odd, even, strict=True):
        yield ("browser_click", {"ref": o if int(number) % 2 else e})
    yield ("browser_click", {"ref": ref(outline, "button", "Submit")})
    return "Done."


def email_inbox(task: str) -> Policy:
    """The email tasks: delete, star (mark important), reply, forward."""
    sender = re.search(r"email by (.+?) and", task)
    if sender is None:
        raise Stuck(f"unexpected task: {task}")
    outline = yield ("browser_snapshot", {})
    yield ("browser_click", {"ref": ref_named(outline, sender.group(1))})
    outline = yield ("browser_snapshot", {})
    if "trash" in task or "star" in task:
        icon = "trash" if "trash" in task else "star"
        found = re.search(rf'\[(e\d+)\] \(class "{icon}"\)', outline)
        if found is None:
            raise Stuck(f"no {icon} icon in the open email")
        yield ("browser_click", {"ref": found.group(1)})
        return "Done."
    replying = "reply" in task
    yield ("browser_click", {"ref": ref_named(outline, "Reply" if replying else "Forward")})
    outline = yield ("browser_snapshot", {})
    if replying:
        yield ("browser_type", {"ref": ref(outline, "textbox"), "text": quoted(task)[0]})
    else:
        to = re.search(r"forward that email to (.+?)\.$", task)
        if to is None:
            raise Stuck(f"unexpected task: {task}")
        fields = re.findall(r"- textbox[^\n]*?\[(e\d+)", outline)
        yield ("browser_type", {"ref": fields[0], "text": to.group(1)})
    outline = yield ("browser_snapshot", {})
    send_id = "send-reply" if replying else "send-forward"
    found = re.search(rf'\[(e\d+)\] \(id "{send_id}"\)', outline)
    if found is None:
        raise Stuck("no send button in the snapshot")
    yield ("browser_click", {"ref": found.group(1)})
    return "Done."


def click_dialog_2(task: str) -> Policy:
    label = quoted(task)[-1]
    outline = yield ("browser_snapshot", {})
    # the dialog's "x" is its close button, named Close
    yield ("browser_click", {"ref": ref(outline, "button", "Close" if label == "x" else label)})
    return "Done."


POLICIES: dict[str, Callable[[str], Policy]] = {
    "click-button": click_button,
    "click-link": click_link,
    "click-checkboxes": click_checkboxes,
    "click-option": click_option,
    "click-tab": click_tab,
    "click-tab-2": click_tab_2,
    "navigate-tree": navigate_tree,
    "email-inbox-delete": email_inbox_delete,
    "drag-items": drag_items,
    "enter-text": enter_text,
    "enter-date": enter_date,
    "enter-time": enter_time,
    "focus-text": focus_text,
    "login-user": login_user,
    "click-collapsible": click_collapsible,
    "click-dialog": click_dialog,
    "use-autocomplete": use_autocomplete,
    "social-media": social_media,
    "click-test": click_test,
    "click-test-2": click_test_2,
    "click-button-sequence": click_button_sequence,
    "enter-password": enter_password,
    "choose-list": choose_list,
    "click-scroll-list": click_scroll_list,
    "focus-text-2": focus_text_2,
    "use-spinner": use_spinner,
    "find-word": find_word,
    "read-table": read_table,
    "scroll-text": scroll_text,
    "enter-text-2": enter_text_2,
    "click-widget": click_widget,
    "odd-or-even": odd_or_even,
    "email-inbox": email_inbox,
    "email-inbox-reply": email_inbox,
    "email-inbox-important": email_inbox,
    "email-inbox-forward": email_inbox,
    "email-inbox-noscroll": email_inbox,
    "click-checkboxes-large": click_checkboxes,
    "click-checkboxes-transfer": click_checkboxes,
    "enter-text-dynamic": enter_text,
    "click-dialog-2": click_dialog_2,
}
