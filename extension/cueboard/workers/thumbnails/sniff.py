"""The format, from the bytes alone (never from a file name or a Content-Type)."""

from __future__ import annotations

from typing import Literal

from .errors import ThumbnailError

Format = Literal["gif", "png", "webp", "jpeg", "mp4", "webm"]

_HEIF_BRANDS = {b"avif", b"avis", b"heic", b"heix", b"hevc", b"hevx", b"mif1", b"msf1"}
_UNSUPPORTED_IMAGES: tuple[tuple[bytes, str], ...] = (
    (b"BM", "BMP"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
    (b"\x00\x00\x01\x00", "ICO"),
    (b"\xff\x0a", "JPEG XL"),
    (b"\x00\x00\x00\x0cJXL ", "JPEG XL"),
    (b"8BPS", "PSD"),
    (b"qoif", "QOI"),
)


def sniff(data: bytes) -> Format:
    if not data:
        raise ThumbnailError("empty", "the input is empty")
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[4:8] == b"ftyp":
        if data[8:12] in _HEIF_BRANDS:
            raise ThumbnailError("unsupported", "AVIF and HEIF images are not supported")
        return "mp4"
    if data[:4] == b"\x1a\x45\xdf\xa3":
        return "webm"
    for magic, name in _UNSUPPORTED_IMAGES:
        if data.startswith(magic):
            raise ThumbnailError(
                "unsupported",
                f"{name} images are not supported (use GIF, PNG/APNG, WebP, JPEG, MP4 or WebM)",
            )
    head = data[:256].lstrip().lower()
    if head.startswith((b"<svg", b"<?xml")) and b"<svg" in data[:4096].lower():
        raise ThumbnailError("unsupported", "SVG images are not supported")
    if len(data) < 8 and any(data.startswith(m[: len(data)]) for m in (b"GIF89a", b"\x89PNG")):
        raise ThumbnailError("truncated", "the input ends inside the image's signature")
    raise ThumbnailError("not_an_image", "the input is not an image")
