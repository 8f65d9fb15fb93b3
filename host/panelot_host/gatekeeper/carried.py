"""Text a navigation would carry away: the parts of a URL's query and fragment that the
turn read from pages (issue 33).

A hostile page can tell the model to load ``https://elsewhere/?d=<what you just read>``.
Such a URL is never allowed by a grant alone: the Gatekeeper asks, and the card shows the
carried text. The test is literal: a run of at least ``MIN_CARRIED`` characters of the
query or fragment (as written, or percent-decoded) found verbatim in a tool result of the
turn. Where the result mentions this very URL (a link the page showed, written whole),
that mention is not counted: following a link of the page carries nothing the page did not
already put there, whereas data copied into a URL of the model's making is, and so is the
query of a link to one site put on a URL of another.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from urllib.parse import unquote, unquote_plus, urlsplit

MIN_CARRIED = 8


def carried_text(url: str, read: Iterable[str], minimum: int = MIN_CARRIED) -> tuple[str, ...]:
    """The longest runs (``minimum`` characters or more) of ``url``'s query and fragment
    that occur in ``read``, the texts the turn read; empty when nothing is carried."""
    parts = urlsplit(url.replace("\\", "/"))
    tails = [p for p in (parts.query, parts.fragment) if len(p) >= minimum]
    if not tails:
        return ()
    texts = [_without_mentions(text, url) for text in read]
    found: list[str] = []
    for tail in tails:
        for form in dict.fromkeys((tail, unquote(tail), unquote_plus(tail))):
            for run in _runs_in(form, texts, minimum):
                if not any(run in seen for seen in found):
                    found.append(run)
    return tuple(found)


def _without_mentions(text: str, url: str) -> str:
    """``text`` with each verbatim mention of ``url`` (whole, or without its fragment) cut
    out: the page showed that link itself."""
    for form in dict.fromkeys((url, url.split("#", 1)[0], unquote(url))):
        if len(form) > len(url.split("?", 1)[0].split("#", 1)[0]):
            text = text.replace(form, "\0")
    return text


def _runs_in(value: str, texts: Sequence[str], minimum: int) -> list[str]:
    """Maximal runs of ``value`` of at least ``minimum`` characters found in one of
    ``texts``, scanning left to right."""
    runs = []
    start = 0
    while start + minimum <= len(value):
        window = value[start : start + minimum]
        holders = [t for t in texts if window in t]
        if not holders:
            start += 1
            continue
        end = start + minimum
        while end < len(value) and any(value[start : end + 1] in t for t in holders):
            end += 1
        runs.append(value[start:end])
        start = end
    return runs
