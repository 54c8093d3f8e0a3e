"""The animation canvas: partial frames drawn onto it, and disposed of, as browsers do.

Pillow composites GIF and APNG frames itself, and gets several cases wrong (see
docs/animated-images.md): cleared areas that come out opaque, blend OVER treating alpha
as a colour. Here the GIF and APNG readers hand over each frame's own pixels and this canvas
does the drawing: the canvas starts fully transparent, "background" always means transparent,
and "previous" restores exactly the pixels the frame covered.
"""

from __future__ import annotations

from PIL import Image

Box = tuple[int, int, int, int]  # left, top, right, bottom
TRANSPARENT = (0, 0, 0, 0)


class Canvas:
    """A full-size straight RGBA canvas; the only full-size image a decode keeps."""

    def __init__(self, width: int, height: int) -> None:
        self.size = (width, height)
        self._image: Image.Image | None = None  # allocated on first use, or adopted

    @property
    def image(self) -> Image.Image:
        if self._image is None:
            self._image = Image.new("RGBA", self.size, TRANSPARENT)
        return self._image

    @property
    def blank(self) -> bool:
        """True before anything was drawn: the canvas is all transparent."""
        return self._image is None

    def adopt(self, frame: Image.Image) -> None:
        """Make a full-canvas RGBA frame the canvas itself, instead of copying it in: the
        common case of an opaque full frame then holds one full-size image, not two."""
        if frame.size != self.size or frame.mode != "RGBA":
            raise ValueError("only a full-canvas RGBA frame can become the canvas")
        self._image = frame

    def drop(self) -> None:
        """Forget the pixels (about to be replaced by adopt): frees them before the next frame
        is converted."""
        self._image = None

    def clip(self, box: Box) -> Box | None:
        """The part of `box` inside the canvas, or None when nothing of it is."""
        width, height = self.size
        left, top = max(0, box[0]), max(0, box[1])
        right, bottom = min(width, box[2]), min(height, box[3])
        return (left, top, right, bottom) if left < right and top < bottom else None

    def save(self, box: Box) -> Image.Image | None:
        """The pixels under `box`, for a later restore (dispose to previous)."""
        clipped = self.clip(box)
        return self.image.crop(clipped) if clipped else None

    def restore(self, saved: Image.Image | None, box: Box) -> None:
        clipped = self.clip(box)
        if saved is not None and clipped:
            self.image.paste(saved, clipped[:2])

    def clear(self, box: Box) -> None:
        """Dispose to background: the area becomes transparent, whatever the file's background
        colour (browsers ignore it too)."""
        clipped = self.clip(box)
        if clipped:
            self.image.paste(TRANSPARENT, clipped)

    def replace(self, frame: Image.Image, xy: tuple[int, int]) -> None:
        """Draw with the frame's pixels replacing the canvas's, alpha included (APNG SOURCE,
        or an opaque GIF frame)."""
        self.image.paste(frame, xy)

    def draw_keyed(self, frame: Image.Image, xy: tuple[int, int]) -> None:
        """Draw a frame whose alpha is only 0 or 255 (a GIF frame with a transparent index):
        transparent pixels leave the canvas as it was."""
        self.image.paste(frame, xy, frame)

    def draw_over(self, frame: Image.Image, xy: tuple[int, int]) -> None:
        """Porter-Duff OVER in straight alpha (APNG OVER): a half-transparent red drawn on
        nothing stays (255, 0, 0, 128)."""
        clipped = self.clip((xy[0], xy[1], xy[0] + frame.width, xy[1] + frame.height))
        if not clipped:
            return
        if clipped[2] - clipped[0] != frame.width or clipped[3] - clipped[1] != frame.height:
            left, top = clipped[0] - xy[0], clipped[1] - xy[1]
            right, bottom = left + clipped[2] - clipped[0], top + clipped[3] - clipped[1]
            frame = frame.crop((left, top, right, bottom))
        self.image.alpha_composite(frame, clipped[:2])
