"""Named limits: the host's asset limits and the pipeline's own guards against hostile input."""

from __future__ import annotations

MIB = 1024 * 1024

# What vrOS accepts in `assets.put` (spec § assets).
MAX_SIDE = 128  # AST-9: up to 128 x 128
MAX_FRAMES = 60  # AST-10
MIN_DELAY_MS = 20  # AST-11
MAX_DELAY_MS = 1000  # AST-11
MAX_ASSET_BYTES = 2 * MIB  # AST-12: one asset after decoding

# Browsers' convention: a GIF delay of 10 ms or less (0 included) plays as 100 ms.
GIF_FAST_DELAY_MS = 10
GIF_FAST_DELAY_PLAYS_AS_MS = 100

# Guards against decompression bombs, checked from the declared sizes before any pixel is
# decoded. A full-size RGBA canvas of MAX_SOURCE_PIXELS is 64 MiB, the most one decode may hold.
MAX_SOURCE_SIDE = 16384
MAX_SOURCE_PIXELS = 4096 * 4096
# JPEG decodes at 1/2, 1/4 or 1/8 scale (libjpeg's DCT scaling), so a larger photo stays cheap.
MAX_JPEG_PIXELS = 8 * MAX_SOURCE_PIXELS
MAX_SOURCE_FRAMES = 5000
# Total pixels over all frames a decode may produce: bounds CPU time (about 2 s on one core).
MAX_TOTAL_SOURCE_PIXELS = 400_000_000
# "Short clips" only: anything longer is a video, not an icon.
MAX_CLIP_SECONDS = 60.0

# Input sizes.
MAX_HTTP_BYTES = 8 * MIB  # issue 5: abort a download past this
MAX_LOCAL_BYTES = 64 * MIB  # a local icon larger than this is not an icon
