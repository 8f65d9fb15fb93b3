"""Splitting oversized outbound messages into ``$/chunk`` notifications, and joining them.

Chrome closes the Port when a host writes a frame over 1 MiB, so a message whose JSON
encoding is larger travels as consecutive notifications

    {"jsonrpc":"2.0","method":"$/chunk","params":{"chunkId":..,"index":i,"count":n,"data":..}}

where ``data`` is the i-th slice of the message's JSON text (cut between code points) and
the receiver concatenates the slices in index order. Every chunk frame is at most
``MAX_OUTBOUND_FRAME`` bytes *after* JSON escaping: a ``"`` costs 2 bytes in ``data``, a
control character up to 6. Slices are sized exactly, from a per-byte escape cost table
taken from the encoder itself at import, and the envelope is sized for the widest index.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from typing import Final

import msgspec

from panelot_host.wire.errors import ChunkError
from panelot_host.wire.framing import MAX_OUTBOUND_FRAME

CHUNK_METHOD: Final = "$/chunk"
MAX_CHUNK_ID_LENGTH: Final = 256
_ENCODER = msgspec.json.Encoder()


class ChunkParams(msgspec.Struct, frozen=True, rename="camel", forbid_unknown_fields=True):
    """The ``params`` of a ``$/chunk`` notification."""

    chunk_id: str
    index: int
    count: int
    data: str


class ChunkNotification(msgspec.Struct, frozen=True, kw_only=True):
    """A whole ``$/chunk`` frame."""

    jsonrpc: str = "2.0"
    method: str = CHUNK_METHOD
    params: ChunkParams


class _Envelope(msgspec.Struct):
    method: str | None = None
    params: msgspec.Raw = msgspec.Raw(b"null")


_ENVELOPE_DECODER = msgspec.json.Decoder(_Envelope)
_PARAMS_DECODER = msgspec.json.Decoder(ChunkParams)


def split_message(
    encoded: bytes, chunk_id: str, *, frame_limit: int = MAX_OUTBOUND_FRAME
) -> list[bytes]:
    """Return the frame payloads that carry ``encoded``: itself if it fits, else chunks.

    Every returned payload is at most ``frame_limit`` bytes.

    Raises:
        ValueError: ``encoded`` is too large and is not valid UTF-8, or ``chunk_id`` is
            empty or longer than ``MAX_CHUNK_ID_LENGTH`` characters.
    """
    if len(encoded) <= frame_limit:
        return [encoded]
    if not 0 < len(chunk_id) <= MAX_CHUNK_ID_LENGTH:
        raise ValueError(f"chunk_id must have 1..{MAX_CHUNK_ID_LENGTH} characters")
    bounds = _slice_for_frames(encoded, chunk_id, frame_limit)
    count = len(bounds)
    return [
        _ENCODER.encode(
            ChunkNotification(params=ChunkParams(chunk_id, index, count, encoded[a:b].decode()))
        )
        for index, (a, b) in enumerate(bounds)
    ]


def _escape_costs() -> tuple[int, ...]:
    """Extra bytes each byte value costs inside a JSON string, as our encoder escapes it.

    Only ASCII is ever escaped; a byte of a multi-byte UTF-8 sequence is copied as is.
    """
    return tuple(len(_ENCODER.encode(chr(b))) - 3 if b < 0x80 else 0 for b in range(256))


_EXTRA_COST = _escape_costs()
_COST_GROUPS = tuple(
    (extra, bytes(b for b in range(256) if _EXTRA_COST[b] == extra))
    for extra in sorted(set(_EXTRA_COST) - {0})
)
_MAX_ESCAPE_EXPANSION = 1 + max(_EXTRA_COST)
_BLOCK = 4096


def _slice_for_frames(encoded: bytes, chunk_id: str, frame_limit: int) -> list[tuple[int, int]]:
    # The envelope's size depends on how many digits index and count take, which depends
    # on the number of slices: size for d digits, and redo with more digits if needed.
    digits = 1
    while True:
        budget = frame_limit - _envelope_size(chunk_id, digits)
        if budget < _MAX_ESCAPE_EXPANSION:
            raise ValueError(f"frame_limit {frame_limit} leaves no room for chunk data")
        bounds = _slice_bounds(encoded, budget)
        if len(str(len(bounds))) <= digits:
            return bounds
        digits = len(str(len(bounds)))


def _envelope_size(chunk_id: str, digits: int) -> int:
    """Bytes of a chunk frame with empty ``data`` and ``digits``-digit index and count."""
    widest = 10**digits - 1
    empty = ChunkNotification(params=ChunkParams(chunk_id, widest, widest, ""))
    return len(_ENCODER.encode(empty))


def _slice_bounds(encoded: bytes, budget: int) -> list[tuple[int, int]]:
    """Cut ``encoded`` between code points into slices that escape to <= ``budget`` bytes."""
    bounds: list[tuple[int, int]] = []
    start = 0
    while start < len(encoded):
        end = _longest_fit(encoded, start, budget)
        bounds.append((start, end))
        start = end
    return bounds


def _longest_fit(encoded: bytes, start: int, budget: int) -> int:
    """The largest code-point boundary ``end`` with ``encoded[start:end]`` escaping to at most
    ``budget`` bytes: whole blocks are measured in C, the last partial block byte by byte."""
    limit = min(len(encoded), start + budget)
    end, used = start, 0
    while end < limit:
        block_end = min(end + _BLOCK, limit)
        cost = _escaped_size(encoded[end:block_end])
        if used + cost > budget:
            break
        end, used = block_end, used + cost
    while end < limit and used + 1 + _EXTRA_COST[encoded[end]] <= budget:
        used += 1 + _EXTRA_COST[encoded[end]]
        end += 1
    while start < end < len(encoded) and encoded[end] & 0xC0 == 0x80:  # inside a UTF-8 char
        end -= 1
    if end == start:
        raise ValueError(f"message is not valid UTF-8 at byte {start}")
    return end


def _escaped_size(raw: bytes) -> int:
    size = len(raw)
    for extra, escaped in _COST_GROUPS:
        size += extra * (len(raw) - len(raw.translate(None, escaped)))
    return size


class ChunkAssembler:
    """Reassembles ``$/chunk`` notifications into the original message bytes.

    Chunks of one message may arrive in any order and interleave with other messages.
    Memory is bounded: an incomplete message whose data passes ``max_message_bytes`` is
    dropped, and when more than ``max_pending`` messages are incomplete the oldest is
    dropped. A later chunk of a dropped message raises ``ChunkError``.
    """

    _CHUNK_OVERHEAD = 64  # charged per chunk so empty slices cannot grow memory for free

    def __init__(self, *, max_message_bytes: int = 64 * 1024 * 1024, max_pending: int = 4) -> None:
        self._max_message_bytes = max_message_bytes
        self._max_pending = max_pending
        self._pending: OrderedDict[str, _Partial] = OrderedDict()
        self._dropped: deque[str] = deque(maxlen=64)

    @property
    def pending(self) -> int:
        """How many messages are partly received."""
        return len(self._pending)

    def accept(self, payload: bytes) -> bytes | None:
        """Take one received frame payload; return a complete message or ``None``.

        A frame that is not a ``$/chunk`` notification is returned unchanged; a chunk
        returns ``None`` until it completes its message, which is then returned.

        Raises:
            ChunkError: as ``add``, or the frame is a ``$/chunk`` with malformed params.
            msgspec.DecodeError: the payload is not a JSON object.
        """
        envelope = _ENVELOPE_DECODER.decode(payload)
        if envelope.method != CHUNK_METHOD:
            return payload
        try:
            params = _PARAMS_DECODER.decode(envelope.params)
        except msgspec.ValidationError as exc:
            raise ChunkError(f"malformed $/chunk params: {exc}") from exc
        return self.add(params)

    def add(self, params: ChunkParams) -> bytes | None:
        """Add one chunk; return the whole message when this chunk completes it.

        Raises:
            ChunkError: index or count out of range, a count differing from earlier
                chunks, a repeated index, a message over ``max_message_bytes``, or a
                chunk of a message already dropped. The message is dropped.
        """
        if params.chunk_id in self._dropped:
            raise ChunkError(f"chunk {params.index} of dropped message {params.chunk_id!r}")
        try:
            partial = self._partial_for(params)
            partial.add(params, self._CHUNK_OVERHEAD, self._max_message_bytes)
        except ChunkError:
            self._drop(params.chunk_id)
            raise
        if not partial.complete:
            return None
        del self._pending[params.chunk_id]
        return partial.join()

    def _partial_for(self, params: ChunkParams) -> _Partial:
        if not 0 <= params.index < params.count:
            raise ChunkError(
                f"chunk index {params.index} out of range for count {params.count} "
                f"in message {params.chunk_id!r}"
            )
        partial = self._pending.get(params.chunk_id)
        if partial is None:
            while len(self._pending) >= self._max_pending:
                self._drop(next(iter(self._pending)))
            partial = self._pending[params.chunk_id] = _Partial(params.count)
        return partial

    def _drop(self, chunk_id: str) -> None:
        self._pending.pop(chunk_id, None)
        self._dropped.append(chunk_id)


class _Partial:
    """The chunks received so far of one message."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.size = 0
        self.pieces: dict[int, bytes] = {}

    @property
    def complete(self) -> bool:
        return len(self.pieces) == self.count

    def add(self, params: ChunkParams, overhead: int, limit: int) -> None:
        if params.count != self.count:
            raise ChunkError(
                f"message {params.chunk_id!r}: chunk {params.index} says count "
                f"{params.count}, earlier chunks said {self.count}"
            )
        if params.index in self.pieces:
            raise ChunkError(f"message {params.chunk_id!r}: chunk {params.index} repeated")
        try:
            piece = params.data.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ChunkError(f"message {params.chunk_id!r}: data is not valid text") from exc
        self.size += len(piece) + overhead
        if self.size > limit:
            raise ChunkError(f"message {params.chunk_id!r} exceeds {limit} bytes; dropped")
        self.pieces[params.index] = piece

    def join(self) -> bytes:
        return b"".join(self.pieces[i] for i in range(self.count))
