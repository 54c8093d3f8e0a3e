"""APNG: chunks read here, each frame decoded by Pillow as a one-frame PNG, composited on our
canvas.

Pillow's own APNG frames blend OVER as if alpha were a colour, return a default image that is
not part of the animation as frame 0, and leave opaque black where dispose BACKGROUND should
leave an RGB frame transparent (docs/animated-images.md). Each frame here is rebuilt as a
plain PNG (the IHDR with the frame's size, PLTE, tRNS, its IDAT or fdAT data) so Pillow only
decodes pixels; blend and dispose are done on the canvas with straight-alpha Porter-Duff.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from .animation import Animation, check_declared_size
from .compose import Box, Canvas
from .errors import ThumbnailError
from .integrity import DamagedData, LastPixel, check_zlib_data, expected_size
from .pixels import to_rgba

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_DISPOSE_NONE, _DISPOSE_BACKGROUND, _DISPOSE_PREVIOUS = 0, 1, 2
_BLEND_SOURCE, _BLEND_OVER = 0, 1


class _Damage(Exception):
    pass


@dataclass(slots=True)
class _Frame:
    box: Box
    delay_ms: int
    dispose: int
    blend: int
    data: list[bytes] = field(default_factory=list[bytes])


@dataclass(slots=True)
class _Layout:
    ihdr: bytes = b""
    plte: bytes | None = None
    trns: bytes | None = None
    declared_frames: int = 0
    plays: int = 0
    frames: list[_Frame] = field(default_factory=list[_Frame])
    damage: str | None = None
    pixel_format: _PixelFormat | None = None  # learnt from the first frame decoded


def is_png(data: bytes) -> bool:
    return data[:8] == SIGNATURE


def is_apng(data: bytes) -> bool:
    """A PNG whose acTL chunk comes before its image data (otherwise it is a still PNG)."""
    if b"acTL" not in data:
        return False  # a byte search: walking the chunks costs more, and most PNGs are still
    try:
        return any(kind == b"acTL" for kind, _ in _chunks(data, check_crc=False, stop_at_idat=True))
    except _Damage:
        return False


def _chunks(
    data: bytes, *, check_crc: bool = True, stop_at_idat: bool = False
) -> Iterator[tuple[bytes, bytes]]:
    pos = len(SIGNATURE)
    end = len(data)
    while pos < end:
        if pos + 8 > end:
            raise _Damage("the file is truncated")
        length, kind = struct.unpack_from(">I4s", data, pos)
        if stop_at_idat and kind == b"IDAT":
            return
        body_end = pos + 8 + length
        if body_end + 4 > end:
            raise _Damage("the file is truncated")
        body = data[pos + 8 : body_end]
        if check_crc:
            (crc,) = struct.unpack_from(">I", data, body_end)
            if zlib.crc32(kind + body) != crc:
                raise _Damage(f"the {kind.decode('latin-1')} chunk at offset {pos} is corrupt")
        yield kind, body
        if kind == b"IEND":
            return
        pos = body_end + 4


def _layout(data: bytes) -> _Layout:
    layout = _Layout()
    current: _Frame | None = None
    try:
        for kind, body in _chunks(data):
            if kind == b"IHDR":
                layout.ihdr = body
            elif kind == b"PLTE":
                layout.plte = body
            elif kind == b"tRNS":
                layout.trns = body
            elif kind == b"acTL" and len(body) >= 8:
                layout.declared_frames, layout.plays = struct.unpack(">II", body[:8])
            elif kind == b"fcTL":
                current = _frame_control(body, layout)
                layout.frames.append(current)
            elif kind == b"IDAT":
                if current is not None:  # else the default image is not part of the animation
                    current.data.append(body)
            elif kind == b"fdAT" and current is not None and len(body) > 4:
                current.data.append(body[4:])
            elif kind == b"IEND":
                return layout
        layout.damage = "the file ends without its IEND chunk"
    except _Damage as damage:
        layout.damage = str(damage)
    return layout


def _frame_control(body: bytes, layout: _Layout) -> _Frame:
    if len(body) < 26 or len(layout.ihdr) < 13:
        raise _Damage("an fcTL chunk is malformed")
    _, width, height, x, y, num, den, dispose, blend = struct.unpack(">IIIIIHHBB", body[:26])
    canvas_w, canvas_h = struct.unpack(">II", layout.ihdr[:8])
    if width == 0 or height == 0 or x + width > canvas_w or y + height > canvas_h:
        raise _Damage(f"frame {len(layout.frames) + 1} lies outside the canvas")
    if dispose > _DISPOSE_PREVIOUS or blend > _BLEND_OVER:
        raise _Damage(f"frame {len(layout.frames) + 1} has an unknown dispose or blend op")
    delay_ms = round(num * 1000 / (den or 100))
    return _Frame(
        box=(x, y, x + width, y + height), delay_ms=delay_ms, dispose=dispose, blend=blend
    )


def open_apng(data: bytes) -> Animation | None:
    """The animation, or None when the file is a still PNG after all."""
    layout = _layout(data)
    if len(layout.ihdr) < 13:
        raise ThumbnailError("corrupt", "the PNG has no valid IHDR chunk")
    width, height = struct.unpack(">II", layout.ihdr[:8])
    frames = [f for f in layout.frames if f.data]
    check_declared_size(width, height, frames=max(len(frames), 1))
    if not frames and not layout.damage and not layout.frames:
        return None  # an acTL without frames: browsers show the still image
    if not frames:
        reason = layout.damage or "it has no frames"
        raise ThumbnailError(
            "truncated" if layout.damage else "corrupt", f"the APNG is unusable: {reason}"
        )
    animation = Animation(
        format="apng",
        width=width,
        height=height,
        frame_count=len(frames),
        loop=layout.plays,  # acTL's num_plays is already the total play count, 0 = forever
        frames=iter(()),
    )
    animation.frames = _composite(layout, frames, animation)
    return animation


def _frame_png(layout: _Layout, frame: _Frame) -> bytes:
    width, height = frame.box[2] - frame.box[0], frame.box[3] - frame.box[1]
    parts = [SIGNATURE, _chunk(b"IHDR", struct.pack(">II", width, height) + layout.ihdr[8:13])]
    if layout.plte is not None:
        parts.append(_chunk(b"PLTE", layout.plte))
    if layout.trns is not None:
        parts.append(_chunk(b"tRNS", layout.trns))
    parts.append(_chunk(b"IDAT", b"".join(frame.data)))
    parts.append(_chunk(b"IEND", b""))
    return b"".join(parts)


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


@dataclass(frozen=True, slots=True)
class _PixelFormat:
    """How Pillow decoded the first frame: every later frame shares it (one IHDR, PLTE and
    tRNS for the whole file), so they go straight to Pillow's zlib decoder."""

    mode: str
    decoder_args: tuple[Any, ...]
    palette: list[int] | None
    transparency: Any


def _decode_frame(layout: _Layout, frame: _Frame) -> Image.Image:
    """The frame's pixels, checked whole (integrity.py: its chunks' CRCs were checked by
    `_chunks`)."""
    width, height = frame.box[2] - frame.box[0], frame.box[3] - frame.box[1]
    interlace = layout.ihdr[12]
    known = layout.pixel_format
    if known is not None:
        pixels = Image.new(known.mode, (width, height), None)
        last = LastPixel(pixels.im, known.mode, pixels.size, bool(interlace))
        pixels.frombytes(b"".join(frame.data), "zip", *known.decoder_args)
        _check_whole(last, pixels, frame, layout)
        if known.palette is not None:
            pixels.putpalette(known.palette)
        if known.transparency is not None:
            pixels.info["transparency"] = known.transparency
        return to_rgba(pixels)
    with Image.open(io.BytesIO(_frame_png(layout, frame))) as image:
        tiles = image.tile
        last = LastPixel.new(image.mode, image.size, bool(interlace))
        image.im = last.core  # Pillow decodes into the core an image already has
        image.load()
        _check_whole(last, image, frame, layout)
        if len(tiles) == 1 and tiles[0].codec_name == "zip" and isinstance(tiles[0].args, str):
            layout.pixel_format = _PixelFormat(
                image.mode,
                (tiles[0].args, *image.decoderconfig),
                image.getpalette() if image.mode == "P" else None,
                image.info.get("transparency"),
            )
        return to_rgba(image)


def _check_whole(last: LastPixel, pixels: Image.Image, frame: _Frame, layout: _Layout) -> None:
    """Raise DamagedData when the decoder may have stopped before the frame's last row and its
    data does not hold every row."""
    if last.maybe_unwritten(pixels.im):
        width, height = frame.box[2] - frame.box[0], frame.box[3] - frame.box[1]
        depth, colour_type, _, _, interlace = layout.ihdr[8:13]
        check_zlib_data(frame.data, expected_size(width, height, depth, colour_type, interlace))


def _composite(
    layout: _Layout, frames: list[_Frame], animation: Animation
) -> Iterator[tuple[Image.Image, int]]:
    canvas = Canvas(animation.width, animation.height)
    full = (0, 0, animation.width, animation.height)
    for number, frame in enumerate(frames, start=1):
        try:
            pixels = _decode_frame(layout, frame)
        except (OSError, ValueError, SyntaxError, zlib.error) as error:
            if number == 1:
                why = str(error) if isinstance(error, DamagedData) else "its data is corrupt"
                raise ThumbnailError(
                    "corrupt", f"the APNG's first frame cannot be decoded whole: {why}"
                ) from None
            animation.warnings.append(
                f"kept the {number - 1} frames before frame {number}, whose data is damaged"
            )
            return
        dispose = frame.dispose
        if number == 1 and dispose == _DISPOSE_PREVIOUS:
            dispose = _DISPOSE_BACKGROUND  # APNG spec: PREVIOUS on the first frame
        saved = canvas.save(frame.box) if dispose == _DISPOSE_PREVIOUS else None
        if frame.blend == _BLEND_SOURCE and frame.box == full and saved is None:
            canvas.drop()
            canvas.adopt(pixels)
        elif frame.blend == _BLEND_SOURCE:
            canvas.replace(pixels, frame.box[:2])
        else:
            canvas.draw_over(pixels, frame.box[:2])
        del pixels
        yield canvas.image, frame.delay_ms
        if dispose == _DISPOSE_BACKGROUND:
            canvas.clear(frame.box)
        elif dispose == _DISPOSE_PREVIOUS:
            canvas.restore(saved, frame.box)
    if layout.damage:
        animation.warnings.append(
            f"kept the {len(frames)} frames before the damage: {layout.damage}"
        )
    elif layout.declared_frames and layout.declared_frames != len(frames):
        animation.warnings.append(
            f"the APNG declares {layout.declared_frames} frames but holds {len(frames)}"
        )
