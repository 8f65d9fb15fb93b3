"""``browser_snapshot``'s outline read back (issue 29): one line per element, indented by
nesting (``  - button "Pay" [e12 disabled]``, or ``[ref=e12]``), after a header line
``Page "<title>" at <url>; ...``. From it: an element's semantic description (role and
accessible name, the landmark it is in, the heading above it, its place among equals), and
that description resolved again on another snapshot, by meaning rather than by ref, so a
page whose ids, classes or order changed, or that gained a banner, still resolves.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from fnmatch import fnmatchcase

import msgspec

from panelot_host.protocol.workflows import SemanticTarget

LANDMARK_ROLES = frozenset(
    {"banner", "main", "navigation", "contentinfo", "complementary", "region", "form", "search",
     "dialog", "alertdialog"}
)  # fmt: skip
_QUOTED = r'"(?:[^"\\]|\\.)*"'
_LINE = re.compile(
    rf"^(?P<indent> *)- (?P<role>[a-z][a-z-]*)(?:\[(?P<level>\d)\])?"
    rf"(?: (?P<name>{_QUOTED}))?(?: {_QUOTED})?(?: = (?P<value>{_QUOTED}))?"
    r" \[(?:ref=)?(?P<ref>(?:f\d+)?e\d+)(?P<flags>[^\]]*)\]"
)
_HEADER = re.compile(r"^Page (?P<title>" + _QUOTED + r") at (?P<url>\S+?)[,;]")
_ELEMENT = re.compile(rf"^(?P<role>[a-z][a-z-]*)(?:\[\d\])?(?: (?P<name>{_QUOTED}))?")


class Node(msgspec.Struct, frozen=True):
    """One element line of an outline."""

    index: int  # among the outline's element lines
    depth: int
    role: str
    name: str
    ref: str
    value: str | None = None
    parent: int | None = None  # index of the enclosing line


class Outline(msgspec.Struct, frozen=True):
    url: str | None
    title: str | None
    nodes: list[Node]

    def by_ref(self, ref: str) -> Node | None:
        return next((n for n in self.nodes if n.ref == ref), None)


def normalised(text: str) -> str:
    """Whitespace collapsed, case folded: how names are compared."""
    return " ".join(text.split()).casefold()


def describe(role: str, name: str) -> str:
    """``role "name"`` (``role`` alone without a name), as snapshots and targets show it."""
    return f"{role} {json.dumps(name, ensure_ascii=False)}" if name else role


def parse(text: str) -> Outline:
    """The element lines of a snapshot's text (other lines are ignored)."""
    url = title = None
    nodes: list[Node] = []
    stack: list[Node] = []
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header and url is None:
            url, title = header["url"], json.loads(header["title"])
            continue
        match = _LINE.match(line)
        if match is None:
            continue
        depth = len(match["indent"]) // 2
        while stack and stack[-1].depth >= depth:
            stack.pop()
        node = Node(
            index=len(nodes),
            depth=depth,
            role=match["role"],
            name=json.loads(match["name"]) if match["name"] else "",
            ref=match["ref"],
            value=json.loads(match["value"]) if match["value"] else None,
            parent=stack[-1].index if stack else None,
        )
        nodes.append(node)
        stack.append(node)
    return Outline(url=url, title=title, nodes=nodes)


def parse_element(element: str) -> tuple[str, str] | None:
    """``button "Pay"`` (a call's ``target.element``) -> ``("button", "Pay")``."""
    match = _ELEMENT.match(element.strip())
    if match is None:
        return None
    return match["role"], json.loads(match["name"]) if match["name"] else ""


def _landmark(outline: Outline, node: Node) -> Node | None:
    up = node.parent
    while up is not None:
        parent = outline.nodes[up]
        if parent.role in LANDMARK_ROLES:
            return parent
        up = parent.parent
    return None


def _heading(outline: Outline, node: Node) -> Node | None:
    return next((n for n in reversed(outline.nodes[: node.index]) if n.role == "heading"), None)


def _equals(outline: Outline, role: str, name: str) -> list[Node]:
    key = normalised(name)
    return [n for n in outline.nodes if n.role == role and normalised(n.name) == key]


def url_pattern(url: str) -> str:
    """The pattern a step's page is recognised by: the URL without query and fragment,
    then anything (``https://shop.example/cart*``)."""
    return re.split(r"[?#]", url, maxsplit=1)[0] + "*"


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of an absolute URL (the URL itself when it has none)."""
    match = re.match(r"^([a-z][a-z0-9+.-]*://[^/?#]*)", url, flags=re.IGNORECASE)
    return match[1].lower() if match else url


def url_matches(pattern: str, url: str) -> bool:
    return fnmatchcase(url, pattern) or fnmatchcase(url.rstrip("/"), pattern.rstrip("*/") + "*")


def target_of(outline: Outline, node: Node, origin: str | None = None) -> SemanticTarget:
    """The semantic description of ``node`` on ``outline``."""
    landmark, heading = _landmark(outline, node), _heading(outline, node)
    equals = _equals(outline, node.role, node.name)
    return SemanticTarget(
        role=node.role,
        name=node.name,
        origin=origin,
        url_pattern=url_pattern(outline.url) if outline.url else None,
        landmark=describe(landmark.role, landmark.name) if landmark else None,
        heading=describe(heading.role, heading.name) if heading else None,
        nth=equals.index(node) if node in equals else 0,
        count=max(len(equals), 1),
    )


class Resolved(msgspec.Struct, frozen=True):
    node: Node


class Unresolved(msgspec.Struct, frozen=True):
    """Why a target did not resolve: ``looked_for`` and ``found`` in words."""

    looked_for: str
    found: str


def looked_for(target: SemanticTarget) -> str:
    words = describe(target.role, target.name)
    if target.landmark:
        words += f" in {target.landmark}"
    if target.heading:
        words += f" under {target.heading}"
    if target.count > 1:
        words += f" (number {target.nth + 1} of {target.count} alike)"
    return words


def resolve(target: SemanticTarget, outline: Outline) -> Resolved | Unresolved:
    """The element of ``outline`` that ``target`` describes: the same role and name
    (whitespace and case aside); several are narrowed by landmark, then heading, then
    taken by position when the page has as many as when it was recorded."""
    candidates = _equals(outline, target.role, target.name)
    if not candidates:
        return Unresolved(looked_for(target), _nearest(outline, target))
    if len(candidates) == 1:
        return Resolved(candidates[0])
    narrowed = candidates
    if target.landmark:
        wanted = normalised(target.landmark)
        narrowed = _keep(narrowed, lambda n: _described(_landmark(outline, n)) == wanted)
    if target.heading:
        wanted_heading = normalised(target.heading)
        narrowed = _keep(narrowed, lambda n: _described(_heading(outline, n)) == wanted_heading)
    if len(narrowed) == 1:
        return Resolved(narrowed[0])
    for group in (narrowed, candidates):
        if len(group) == target.count and target.nth < len(group):
            return Resolved(group[target.nth])
    found = f"{len(candidates)} elements {describe(target.role, target.name)}"
    return Unresolved(looked_for(target), found + ", none of which it tells apart")


def _described(node: Node | None) -> str | None:
    return normalised(describe(node.role, node.name)) if node is not None else None


def _keep(nodes: list[Node], test: Callable[[Node], bool]) -> list[Node]:
    kept = [n for n in nodes if test(n)]
    return kept or nodes


def _nearest(outline: Outline, target: SemanticTarget) -> str:
    same_role = [describe(n.role, n.name) for n in outline.nodes if n.role == target.role]
    if not same_role:
        return f"no {target.role} on the page"
    shown = ", ".join(same_role[:5]) + (", ..." if len(same_role) > 5 else "")
    return f"no such {target.role}; the page has {shown}"


def has_element(outline: Outline, role: str, name: str) -> bool:
    return bool(_equals(outline, role, name))
