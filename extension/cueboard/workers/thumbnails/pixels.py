"""Any decoded Pillow image to straight RGBA8, right where Pillow's convert() is not."""

from __future__ import annotations

from PIL import Image

_SIXTEEN_BIT_GREY = ("I;16", "I;16L", "I;16B", "I;16N", "I")


def to_rgba(image: Image.Image) -> Image.Image:
    """Straight RGBA8, transparency keys applied.

    Pillow clips 16-bit greyscale to nearly white when converting it (docs/animated-images.md):
    such images are scaled to 8 bits here instead, rounding to nearest.
    """
    if image.mode == "RGBA":
        return image
    if image.mode in _SIXTEEN_BIT_GREY:
        return _grey16_to_rgba(image)
    return image.convert("RGBA")


def _grey16_to_rgba(image: Image.Image) -> Image.Image:
    import numpy as np  # only 16-bit greyscale needs it: not imported with the package

    values = np.asarray(image).astype(np.uint32)
    grey = ((values * 255 + 32767) // 65535).astype(np.uint8)
    alpha = np.full(grey.shape, 255, np.uint8)
    key = image.info.get("transparency")
    if isinstance(key, int):
        alpha[values == key] = 0
    rgba = np.stack([grey, grey, grey, alpha], axis=-1)
    return Image.fromarray(rgba, "RGBA")
