"""What a connection's transport writes for each message: the buffers of one item of
its outbox.

``PlainMessages`` (in-process transports): a message is its JSON payload alone.
``FramedMessages`` (native messaging): a message is its frame header followed by its
JSON, as separate buffers for one ``os.writev``, so framing never copies it. A
notification is encoded straight into header, envelope head, params and tail (the
envelope around params is constant per method); a message over 1 MiB becomes its
``$/chunk`` frames.
"""

from __future__ import annotations

from typing import Any

import msgspec

from panelot_host.protocol import codec
from panelot_host.wire.framing import MAX_OUTBOUND_FRAME, frame_header, small_frame_headers
from panelot_host.wire.outbound import chunk_ids, frame_parts

Buffers = tuple[bytes, ...]
"""One outbox item: written in order, back to back."""

_encode = msgspec.json.Encoder().encode
_HEADS = codec.notification_heads()
_TAIL = codec.NOTIFICATION_TAIL
_SMALL_HEADERS = small_frame_headers()
_SMALL = len(_SMALL_HEADERS)


class PlainMessages:
    """Each message as its JSON payload alone (``DirectTransport``)."""

    def notification(self, method: str, params: Any) -> Buffers:
        return (codec.encode_notification(method, params),)

    def payload(self, payload: bytes) -> Buffers:
        return (payload,)


class FramedMessages:
    """Each message as native-messaging frames, header and JSON side by side."""

    def __init__(self) -> None:
        self._chunk_id = chunk_ids()

    def notification(self, method: str, params: Any) -> Buffers:
        head = _HEADS.get(method)
        if head is None:
            head = codec.notification_head(method)
        body = _encode(params)
        size = len(head) + len(body) + 1
        if size < _SMALL:  # the common case, kept to a few operations: see bench_codec
            return (_SMALL_HEADERS[size], head, body, _TAIL)
        if size <= MAX_OUTBOUND_FRAME:
            return (frame_header(size), head, body, _TAIL)
        return self.payload(b"".join((head, body, _TAIL)))

    def payload(self, payload: bytes) -> Buffers:
        """An already encoded message (a result, an error, a request to the shim)."""
        return tuple(frame_parts((payload,), self._chunk_id))


MessageEncoder = PlainMessages | FramedMessages
