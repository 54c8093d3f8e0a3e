"""Still PNG and JPEG through Pillow, with EXIF orientation applied to the icon."""

from __future__ import annotations

import io
from collections.abc import Iterator

from PIL import Image, ImageFile

from .animation import Animation, check_declared_size
from .errors import ThumbnailError
from .fit import REDUCING_GAP, fit_size
from .integrity import (
    DamagedData,
    LastPixel,
    check_jpeg,
    check_zlib_data,
    png_expected_size,
    png_parts,
)
from .limits import MAX_JPEG_PIXELS, MAX_SIDE, MAX_SOURCE_PIXELS
from .pixels import to_rgba

_PILLOW_FORMAT = {"png": "PNG", "jpeg": "JPEG"}

_EXIF_ORIENTATION = 0x0112
# EXIF orientation value -> the transpose that shows the image upright.
_ORIENTATION_FIX: dict[int, Image.Transpose] = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
# Where Pillow's getexif() finds an orientation: EXIF (JPEG APP1, PNG eXIf or a raw profile in
# a text chunk) and XMP.
_ORIENTATION_SOURCES = ("exif", "Raw profile type exif", "XML:com.adobe.xmp", "xmp")
_OPEN_ERRORS = (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError)


def open_with_pillow(data: bytes, kind: str) -> Animation:
    try:
        image = Image.open(io.BytesIO(data), formats=[_PILLOW_FORMAT[kind]])
    except Image.DecompressionBombError:
        raise ThumbnailError("too_large", "the image declares too many pixels") from None
    except _OPEN_ERRORS:
        raise ThumbnailError("corrupt", f"the {kind.upper()} data cannot be read") from None
    check_declared_size(
        *image.size, max_pixels=MAX_JPEG_PIXELS if kind == "jpeg" else MAX_SOURCE_PIXELS
    )
    width, height = image.size
    if kind == "png":
        transpose = _decode_png(image, data)
        frames = _loaded_frame(image)
    else:
        try:
            check_jpeg(data)
        except DamagedData as damage:
            image.close()
            raise ThumbnailError("corrupt", f"the JPEG cannot be decoded whole: {damage}") from None
        transpose = _image_orientation_fix(image)
        # Decode at the smallest DCT scale still twice the target: a photo never decodes at
        # full size just to become an icon. (No scale fits an image under twice that: no draft.)
        target = fit_size(width, height, MAX_SIDE)
        wanted = (int(target[0] * REDUCING_GAP), int(target[1] * REDUCING_GAP))
        if width >= 2 * wanted[0] and height >= 2 * wanted[1]:
            image.draft(None, wanted)
        frames = _still_frame(image, kind)
    return Animation(
        format=kind,
        width=width,
        height=height,
        frame_count=1,
        loop=0,
        frames=frames,
        transpose=transpose,
    )


def _decode_png(image: ImageFile.ImageFile, data: bytes) -> Image.Transpose | None:
    """Load the PNG, its image data checked whole (integrity.py); its orientation."""
    parts = png_parts(data)
    if parts.damage is not None:
        image.close()
        raise ThumbnailError("corrupt", f"the PNG cannot be decoded whole: {parts.damage}")
    last = LastPixel.new(image.mode, image.size, bool(image.info.get("interlace")))
    image.im = last.core  # Pillow decodes into the core an image already has
    # Loaded before the EXIF is read: Pillow loads a PNG to find an eXIf chunk after the image
    # data, and a load that failed there would leave a half-decoded image behind.
    _load(image, "png")
    if last.maybe_unwritten(image.im):
        try:
            check_zlib_data(parts.idat, png_expected_size(parts.ihdr))
        except DamagedData as damage:
            image.close()
            raise ThumbnailError("corrupt", f"the PNG cannot be decoded whole: {damage}") from None
    return _image_orientation_fix(image)


def _image_orientation_fix(image: Image.Image) -> Image.Transpose | None:
    if not any(key in image.info for key in _ORIENTATION_SOURCES):
        return None  # nothing for getexif() to read, and most icons have nothing
    try:
        return orientation_fix(image.getexif())
    except _OPEN_ERRORS:
        return None


def orientation_fix(exif: Image.Exif) -> Image.Transpose | None:
    """The transpose that shows an image upright, from its EXIF orientation."""
    orientation = exif.get(_EXIF_ORIENTATION)
    return _ORIENTATION_FIX.get(orientation) if isinstance(orientation, int) else None


def _load(image: Image.Image, kind: str) -> None:
    try:
        image.load()
    except _OPEN_ERRORS as error:
        image.close()
        if "truncated" in str(error):
            raise ThumbnailError(
                "corrupt", f"the {kind.upper()} cannot be decoded whole: the file is truncated"
            ) from None
        raise ThumbnailError(
            "corrupt", f"the {kind.upper()} cannot be decoded whole: its image data is corrupt"
        ) from None


def _still_frame(image: Image.Image, kind: str) -> Iterator[tuple[Image.Image, int]]:
    with image:
        _load(image, kind)
        yield to_rgba(image), 0


def _loaded_frame(image: Image.Image) -> Iterator[tuple[Image.Image, int]]:
    with image:
        yield to_rgba(image), 0
