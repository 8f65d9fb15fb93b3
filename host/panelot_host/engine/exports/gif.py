"""An animated GIF of a thread's actions: one frame per tool call that has an ``after``
frame, in the order captured, each scaled to a common size (at most ``MAX_WIDTH`` wide),
the action's mark drawn on it (a ring for a point, a rectangle for an element) and about
``FRAME_MS`` per frame."""

from __future__ import annotations

import io
from typing import Final

from PIL import Image, ImageDraw

from panelot_host.errors import InvalidParams
from panelot_host.protocol.frames import FrameMark
from panelot_host.protocol.thread_export import ExportFrame, ThreadExportDocument

MAX_WIDTH: Final = 800
FRAME_MS: Final = 1000
MARK_COLOUR: Final = (255, 64, 64)
BACKGROUND: Final = (32, 32, 32)
PROGRESS_HEIGHT: Final = 4
"""A bar under each frame, as long as the share of the actions shown so far."""


def actions(document: ThreadExportDocument) -> list[ExportFrame]:
    """Each action's ``after`` frame (its last one), in the order captured."""
    last: dict[str, ExportFrame] = {}
    for frame in document.frames:
        if frame.phase == "after":
            last[frame.item_id] = frame
    return sorted(last.values(), key=lambda f: (f.captured_at, f.item_id))


def render(document: ThreadExportDocument, images: dict[str, tuple[str, bytes]]) -> bytes:
    """The GIF's bytes. Raises ``InvalidParams`` when no action of the document has a
    stored frame."""
    chosen = [f for f in actions(document) if f.id in images]
    if not chosen:
        raise InvalidParams(
            "this thread has no frames to animate: turn on frame capture and let it act "
            "on a page (or export html, md or json)",
            [{"path": "$.params.format", "message": "no frames"}],
        )
    width = min(MAX_WIDTH, max(f.width for f in chosen))
    height = max(round(f.height * width / f.width) for f in chosen)
    pictures = [
        _picture(f, images[f.id][1], width, height, (n + 1) / len(chosen))
        for n, f in enumerate(chosen)
    ]
    out = io.BytesIO()
    pictures[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=pictures[1:],
        duration=FRAME_MS,
        loop=0,
        disposal=1,
    )
    return out.getvalue()


def _picture(
    frame: ExportFrame, image: bytes, width: int, height: int, progress: float
) -> Image.Image:
    with Image.open(io.BytesIO(image)) as opened:
        source = opened.convert("RGB")
    scale = width / source.width
    scaled = source.resize((width, max(1, round(source.height * scale))), Image.Resampling.LANCZOS)
    canvas = Image.new("RGB", (width, height + PROGRESS_HEIGHT), BACKGROUND)
    canvas.paste(scaled, (0, 0))
    # how far into the run: also keeps two actions on an unchanged page two frames (the
    # GIF writer merges identical frames)
    bar = (0, height, max(1, round(width * progress)) - 1, height + PROGRESS_HEIGHT - 1)
    ImageDraw.Draw(canvas).rectangle(bar, fill=MARK_COLOUR)
    if frame.mark is not None:
        # the mark is in the stored image's pixels, which may differ from the frame's
        # recorded size only by the capture's scale: follow the image as decoded
        _draw(ImageDraw.Draw(canvas), frame.mark, width / frame.width)
    return canvas.quantize(colors=255, dither=Image.Dither.NONE)


def _draw(draw: ImageDraw.ImageDraw, mark: FrameMark, scale: float) -> None:
    x, y = mark.x * scale, mark.y * scale
    if mark.kind == "box" and mark.width and mark.height:
        box = (x, y, x + mark.width * scale, y + mark.height * scale)
        draw.rectangle(box, outline=MARK_COLOUR, width=3)
    else:
        radius = 14
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), outline=MARK_COLOUR, width=3)
