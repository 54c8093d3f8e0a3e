"""`python -m cueboard.workers.thumbnails FILE_OR_URL... [--summary]`: check icons as Cueboard
would.

One JSON object a line per input, in order: the `assets.put` params the icon would be sent
with, or {"error": reason}. Exit status 0 when every input was accepted, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import anyio

from .cache import IconCache
from .decode import decode_file, decode_thumbnail
from .errors import ThumbnailError
from .model import Thumbnail
from .sources import is_url, load_source


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m cueboard.workers.thumbnails",
        description="Decode icons into vrOS asset frames and print them as JSON lines.",
    )
    parser.add_argument("inputs", nargs="+", metavar="FILE_OR_URL")
    parser.add_argument(
        "--summary",
        action="store_true",
        help="print sizes, frame counts and durations instead of pixels",
    )
    parser.add_argument(
        "--no-network", action="store_true", help="refuse URLs, as without the network grant"
    )
    parser.add_argument("--cache-dir", type=Path, help="on-disk cache for fetched URLs")
    return parser


def describe(thumbnail: Thumbnail, *, summary: bool) -> dict[str, Any]:
    line = thumbnail.summary() if summary else thumbnail.put_params()
    if thumbnail.warnings:
        line["warnings"] = list(thumbnail.warnings)
    return line


async def _run(args: argparse.Namespace) -> int:
    cache = IconCache(args.cache_dir) if args.cache_dir else None
    status = 0
    for reference in args.inputs:
        try:
            if is_url(reference):
                data = await load_source(
                    reference, network_granted=not args.no_network, cache=cache
                )
                thumbnail = decode_thumbnail(data)
            else:
                thumbnail = decode_file(Path(reference))
            line = describe(thumbnail, summary=args.summary)
        except ThumbnailError as error:
            line = {"error": error.reason}
            status = 1
        sys.stdout.write(json.dumps(line, separators=(",", ":")) + "\n")
        sys.stdout.flush()
    return status


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return anyio.run(_run, args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
