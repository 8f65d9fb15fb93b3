"""A thread export as one self-contained HTML report: the conversation, each action with
its frames (the action drawn over each in inline SVG: a ring for a point, a rectangle for
an element; the text typed and the page's URL as captions), approvals and who decided
them, denials, calls whose outcome is unknown, costs and durations. The selected branch
comes first, the items of other branches after it.

Nothing in it reaches the network: styles are inline, images are ``data:`` URLs, there is
no script at all, and its Content-Security-Policy forbids everything else. Every string
from the thread (model text, tool arguments, page titles and URLs) is HTML-escaped.
"""

from __future__ import annotations

import base64
from html import escape
from typing import Final

from panelot_host.engine.exports import transcript
from panelot_host.protocol import items
from panelot_host.protocol.frames import FrameMark
from panelot_host.protocol.thread_export import ExportApproval, ExportFrame, ThreadExportDocument

CSP: Final = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
_STYLE: Final = """
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
color:#1d1d1f;background:#fff}
h1{font-size:1.6rem}h2{font-size:1.2rem;border-top:1px solid #ddd;padding-top:1rem}
h2.branches{font-size:1.4rem;border-top:3px double #999}
.meta,.usage{color:#555;font-size:.9rem}
.user,.assistant,.notice{white-space:pre-wrap;margin:.6rem 0;padding:.6rem .8rem;border-radius:8px}
.user{background:#eef4ff}.assistant{background:#f6f6f6}.notice{background:#fff8e1}
.call{border:1px solid #ddd;border-radius:8px;margin:.6rem 0;padding:.6rem .8rem}
.call.denied{border-color:#c62828}.call.uncertain{border-color:#ef6c00}
.call.failed{border-color:#b71c1c}
.status{font-weight:600}.args,.result{font-family:ui-monospace,monospace;font-size:.85rem;
white-space:pre-wrap;word-break:break-word}
.approval{font-size:.9rem;margin:.3rem 0}
figure{margin:.6rem 0}.frame{position:relative;display:inline-block;max-width:100%}
.frame img{display:block;max-width:100%;height:auto}
.frame svg{position:absolute;left:0;top:0;width:100%;height:100%}
figcaption{font-size:.8rem;color:#555;word-break:break-all}
"""


def render(document: ThreadExportDocument, images: dict[str, tuple[str, bytes]]) -> str:
    """The report of the document's selected branch (its secrets already masked), with
    ``images`` (frame id -> mime, bytes) inline; the items of other branches follow it."""
    thread = document.thread
    frames_of: dict[str, list[ExportFrame]] = {}
    for frame in document.frames:
        frames_of.setdefault(frame.item_id, []).append(frame)
    body = [f"<h1>{escape(thread.title)}</h1>", _meta(document)]
    shown = transcript.branch(document)
    body += _conversation(document, shown, frames_of, images)
    on_branch = {item.id for item in shown}
    others = [item for item in document.items if item.id not in on_branch]
    if others:
        body.append('<h2 class="branches">Other branches</h2>')
        body += _conversation(document, others, frames_of, images)
    return _page(thread.title, "\n".join(body))


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{escape(title)}</title>\n<style>{_STYLE}</style></head>\n"
        f"<body>\n{body}\n</body></html>\n"
    )


def _meta(document: ThreadExportDocument) -> str:
    stats = document.thread.stats
    return (
        f'<p class="meta">Exported {escape(document.exported_at)} by Panelot '
        f"{escape(document.host.version)}. {stats.turns} turns, {stats.input_tokens} input "
        f"and {stats.output_tokens} output tokens, "
        f"{escape(transcript.cost_text(stats.cost_usd))}.</p>"
    )


def _conversation(
    document: ThreadExportDocument,
    shown: list[items.Item],
    frames_of: dict[str, list[ExportFrame]],
    images: dict[str, tuple[str, bytes]],
) -> list[str]:
    turns = transcript.turns_by_id(document)
    asked = transcript.approvals_by_call(document)
    body: list[str] = []
    current: str | None = None
    for item in shown:
        if item.turn_id != current and item.turn_id in turns:
            current = item.turn_id
            turn = turns[current]
            body.append(f"<h2>Turn {list(turns).index(current) + 1}</h2>")
            body.append(
                f'<p class="usage">{escape(turn.status)}: {escape(transcript.usage_text(turn))}</p>'
            )
        body.append(_item(item, asked.get(item.id, []), frames_of.get(item.id, []), images))
    return body


def _item(
    item: items.Item,
    asked: list[ExportApproval],
    frames: list[ExportFrame],
    images: dict[str, tuple[str, bytes]],
) -> str:
    match item:
        case items.UserItem():
            return f'<div class="user"><b>User:</b> {escape(item.text)}</div>'
        case items.SteeringItem():
            return f'<div class="user"><b>User (while it ran):</b> {escape(item.text)}</div>'
        case items.AssistantItem():
            cut = " <i>(interrupted)</i>" if item.interrupted else ""
            return f'<div class="assistant"><b>Assistant:</b> {escape(item.text)}{cut}</div>'
        case items.ToolCallItem():
            return _call(item, asked, frames, images)
        case items.CompactionItem():
            return (
                f'<p class="notice">Earlier messages summarised ({item.covered_items} items).</p>'
            )
        case _:
            return f'<p class="notice">{escape(item.user_text or item.text)}</p>'


def _call(
    call: items.ToolCallItem,
    asked: list[ExportApproval],
    frames: list[ExportFrame],
    images: dict[str, tuple[str, bytes]],
) -> str:
    took = transcript.seconds_between(call.started_at, call.ended_at)
    parts = [
        f'<div class="call {escape(call.status)}">',
        f"<div><b>{escape(transcript.call_label(call))}</b> <code>{escape(call.name)}</code> "
        f'<span class="status">{escape(call.status)}</span>'
        + (f" in {escape(took)}" if took else "")
        + "</div>",
    ]
    args = transcript.arguments(call)
    if args:
        parts.append(f'<div class="args">{escape(args)}</div>')
    parts += [f'<div class="approval">{escape(transcript.decision_text(a))}</div>' for a in asked]
    if call.status == "uncertain":
        parts.append('<div class="approval">Outcome unknown: the host stopped while it ran.</div>')
    result = transcript.result_text(call.result)
    if result:
        parts.append(f'<div class="result">{escape(result)}</div>')
    parts += [_frame(f, images[f.id]) for f in frames if f.id in images]
    parts.append("</div>")
    return "\n".join(parts)


def _frame(frame: ExportFrame, image: tuple[str, bytes]) -> str:
    mime, data = image
    source = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    caption = [f"{escape(frame.phase)}: {escape(frame.title)}", escape(frame.url)]
    if frame.typed:
        caption.insert(1, f"typed “{escape(frame.typed)}”")
    if frame.blurred:
        caption.append(f"{frame.blurred} password field(s) blurred")
    return (
        '<figure><div class="frame">'
        f'<img src="{escape(source)}" width="{frame.width}" height="{frame.height}" '
        f'alt="{escape(frame.phase)} {escape(frame.title)}">'
        f"{_overlay(frame)}</div>"
        f"<figcaption>{'<br>'.join(caption)}</figcaption></figure>"
    )


def _overlay(frame: ExportFrame) -> str:
    """The action over the image, in its pixels."""
    mark: FrameMark | None = frame.mark
    if mark is None:
        return ""
    view = f'viewBox="0 0 {frame.width} {frame.height}"'
    shape = (
        f'<rect x="{mark.x:g}" y="{mark.y:g}" width="{mark.width:g}" height="{mark.height:g}" '
        'fill="none" stroke="#e53935" stroke-width="3"/>'
        if mark.kind == "box" and mark.width and mark.height
        else f'<circle cx="{mark.x:g}" cy="{mark.y:g}" r="14" fill="none" '
        'stroke="#e53935" stroke-width="3"/>'
    )
    return f'<svg {view} aria-hidden="true">{shape}</svg>'
