"""vrosdev studio: launch an extension under an emulated Studio host (extension protocol v1)."""

from __future__ import annotations

import argparse
import logging
import secrets
import shlex
import sys
from pathlib import Path

import anyio

from .config import (
    SHUTDOWN_DEADLINE_S,
    STATUS_DEADLINE_S,
    StudioConfig,
    VmsFileError,
    load_vms,
)
from .launcher import run_studio
from .transcript import Transcript

__all__ = ["build_parser", "main"]

log = logging.getLogger("vrosdev.studio")
USAGE_EXIT = 2


def build_parser(prog: str = "vrosdev studio") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=__doc__)
    p.add_argument(
        "--command", required=True, metavar="CMD", help="the extension's command line (shell words)"
    )
    p.add_argument(
        "--id", required=True, dest="extension_id", metavar="ID", help="the extension id"
    )
    p.add_argument(
        "--record", type=Path, metavar="FILE", help="append a JSONL transcript of every frame here"
    )
    p.add_argument(
        "--vms", type=Path, metavar="FILE.json", help="a JSON array of objects for host.v1.listVms"
    )
    p.add_argument(
        "--framebuffer",
        nargs="?",
        const="after",
        choices=("after", "before"),
        help="answer host.v1.listVms with an mxfb0001 result and its kind-1 attachment, "
        "sent after (default) or before the JSON response",
    )
    p.add_argument(
        "--end-after",
        choices=("never", "status", "listVms"),
        default="never",
        help="end the session (extension.v1.shutdown) once the status is settled or the first "
        "listVms is answered; by default it ends when the extension exits or on Ctrl-C",
    )
    p.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    # For tests: shorter deadlines than the seed's 5 s and 2 s.
    p.add_argument(
        "--status-deadline", type=float, default=STATUS_DEADLINE_S, help=argparse.SUPPRESS
    )
    p.add_argument(
        "--shutdown-deadline", type=float, default=SHUTDOWN_DEADLINE_S, help=argparse.SUPPRESS
    )
    return p


def main(argv: list[str]) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error argparse has already printed
        return exc.code if isinstance(exc.code, int) else USAGE_EXIT
    _configure_logging(args.log_level)
    command = _split(args.command)
    if command is None:
        return USAGE_EXIT
    if not args.extension_id:
        log.error("--id must not be empty")
        return USAGE_EXIT
    try:
        vms = load_vms(args.vms) if args.vms else None
    except VmsFileError as exc:
        log.error("%s", exc)
        return USAGE_EXIT
    config = StudioConfig(
        extension_id=args.extension_id,
        token=secrets.token_urlsafe(24),
        framebuffer=args.framebuffer,
        end_after=args.end_after,
        status_deadline_s=args.status_deadline,
        shutdown_deadline_s=args.shutdown_deadline,
        **({"vms": vms} if vms is not None else {}),
    )
    try:
        transcript = Transcript(config.token, args.record)
    except OSError as exc:
        log.error("--record %s: %s", args.record, exc.strerror or exc)
        return USAGE_EXIT
    try:
        return anyio.run(run_studio, config, command, transcript)
    except KeyboardInterrupt:
        return 130
    finally:
        transcript.close()


def _split(command: str) -> list[str] | None:
    try:
        words = shlex.split(command)
    except ValueError as exc:
        log.error("--command: %s", exc)
        return None
    if not words:
        log.error("--command is empty")
        return None
    return words


def _configure_logging(level: str) -> None:
    logger = logging.getLogger("vrosdev.studio")
    logger.setLevel(level)
    if not logger.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("studio: %(message)s"))
        logger.addHandler(handler)
