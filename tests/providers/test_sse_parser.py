"""SSEParser: same events as httpx-sse's parser, at any chunk boundary and line ending."""

from __future__ import annotations

import anyio
import httpx
from httpx_sse import EventSource
from hypothesis import given, settings
from hypothesis import strategies as st

from panelot_host.providers.sse import ServerSentEvent, SSEParser

from .streams import Chunks, split_at


def parse(chunks: list[bytes]) -> list[ServerSentEvent]:
    parser = SSEParser()
    events = [event for chunk in chunks for event in parser.feed(chunk)]
    return events + parser.flush()


def oracle(data: bytes) -> list[tuple[str, str]]:
    async def run() -> list[tuple[str, str]]:
        headers = {"content-type": "text/event-stream"}
        response = httpx.Response(200, headers=headers, stream=Chunks([data]))
        return [(e.event, e.data) async for e in EventSource(response).aiter_sse()]

    return anyio.run(run)


text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\0"),
    max_size=20,
)
line_end = st.sampled_from(["\n", "\r\n", "\r"])
field = st.one_of(
    st.tuples(st.just("event"), text),
    st.tuples(st.just("data"), text),
    st.tuples(st.just("id"), text),
    st.tuples(st.just(""), text),  # a comment
)


@st.composite
def streams(draw: st.DrawFn) -> str:
    out = []
    for _ in range(draw(st.integers(0, 6))):
        lines = [*draw(st.lists(field, max_size=3)), ("data", draw(text))]
        for name, value in draw(st.permutations(lines)):
            sep = draw(st.sampled_from([": ", ":"]))
            out.append(f"{name}{sep}{value}{draw(line_end)}")
        out.append(draw(line_end))
    return "".join(out)


@settings(max_examples=300, deadline=None)
@given(stream=streams(), cuts=st.lists(st.integers(0, 400), max_size=12))
def test_parser_matches_httpx_sse_at_any_split(stream: str, cuts: list[int]) -> None:
    data = stream.encode()
    chunks = split_at(data, [c % (len(data) + 1) for c in cuts])
    ours = [(e.event, e.data) for e in parse(chunks)]
    assert ours == oracle(data)


def test_crlf_split_between_chunks_is_one_line_end() -> None:
    assert [e.data for e in parse([b"data: a\r", b"\n\r", b"\ndata: b\r\n\r\n"])] == ["a", "b"]


def test_lone_cr_at_the_end_of_the_stream_completes_the_event() -> None:
    assert [e.data for e in parse([b"data: a\r\r"])] == ["a"]


def test_bom_comments_multiline_data_id_and_retry() -> None:
    stream = b"\xef\xbb\xbf: hello\nid: 7\nretry: 1500\nevent: x\ndata: one\ndata: two\n\n"
    for cut in range(len(stream) + 1):
        assert parse(split_at(stream, [cut])) == [
            ServerSentEvent(raw=b"one\ntwo", event="x", id="7", retry=1500)
        ]


def test_unfinished_event_at_the_end_is_dropped_and_empty_events_are_not_sent() -> None:
    assert parse([b"event: ping\n\ndata: partial"]) == []
    assert parse([b"data: x\n\n"])[0].data == "x"
