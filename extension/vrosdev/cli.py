"""``vrosdev``: the emulated vrOS host, for development, tests and ``make demo``."""

from __future__ import annotations

import argparse
import logging
import secrets
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

from .host.config import CAPABILITY_FLAGS, HOST_VERSIONS, HostConfig
from .script import ScriptError, parse

log = logging.getLogger("vrosdev")
PREVIEW_MARGIN_PX = 24


def _grant(value: str) -> tuple[str, Any]:
    name, sep, raw = value.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"--grant takes NAME=VALUE, got {value!r}")
    if name == "bus":
        return name, raw
    if name not in CAPABILITY_FLAGS:
        raise argparse.ArgumentTypeError(f"unknown capability {name!r}")
    if raw not in ("true", "false"):
        raise argparse.ArgumentTypeError(f"--grant {name}= takes true or false")
    return name, raw == "true"


def _fault(value: str) -> str:
    from .host.faults import FaultSpecError, parse_fault

    try:
        parse_fault(value)
    except FaultSpecError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def _delay(value: str) -> str:
    from .host.faults import FaultSpecError, parse_delay

    try:
        parse_delay(value)
    except FaultSpecError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vrosdev", description=__doc__)
    sub = parser.add_subparsers(dest="verb", required=True)
    run = sub.add_parser("run", help="launch an extension as vrOS does")
    src = run.add_mutually_exclusive_group(required=True)
    src.add_argument("--manifest", type=Path, help="the extension's manifest.toml")
    src.add_argument("--command", help="a command line to launch (with --id)")
    src.add_argument(
        "--installed", metavar="ID", help="an extension installed with vrosdev install"
    )
    run.add_argument("--id", help="the extension id, with --command")
    add_companion_options(run)
    add_host_options(run)
    run.add_argument("--script", type=Path, help="scripted steps; vrosdev stops at its end")
    run.add_argument("--preview", action="store_true", help="open a window per visible panel")
    install = sub.add_parser("install", help="install a .vrosext bundle for run --installed")
    install.add_argument("bundle", type=Path, help="a bundle built by packaging/build.py")
    install.add_argument("--state", type=Path, help="default: ~/.local/state/vrosdev")
    install.add_argument(
        "--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR")
    )
    from .screenshot import add_parser as add_screenshot_parser

    add_screenshot_parser(sub)
    return parser


def add_host_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--content-root", type=Path, help="sent in welcome")
    p.add_argument(
        "--grant", action="append", type=_grant, default=[], help="NAME=true|false, bus=PATTERN"
    )
    p.add_argument("--locale", default="en-US")
    p.add_argument("--host-version", default="1.7", choices=HOST_VERSIONS)
    p.add_argument("--record", type=Path, help="JSONL transcript of every frame")
    p.add_argument("--state", type=Path, help="where kv persists (default: ~/.local/state/vrosdev)")
    p.add_argument("--secrets", choices=("unsupported", "memory"), default="unsupported")
    p.add_argument("--budget-full-every", type=int, default=0, metavar="N")
    p.add_argument("--media", choices=("simulate", "unsupported"), default="simulate")
    p.add_argument("--audio-out", type=Path, help="write soundboard.wav, mic.wav, ui.wav here")
    p.add_argument("--audio-cache-mib", type=int, default=512)
    p.add_argument("--no-device", action="append", default=[], choices=("soundboard", "mic", "ui"))
    p.add_argument("--theme", default="signal")
    p.add_argument("--reduced-motion", action="store_true")
    faults = p.add_argument_group("faults (tests)", "see extension/vrosdev/README.md")
    faults.add_argument(
        "--fault",
        action="append",
        default=[],
        type=_fault,
        metavar="NAMESPACE.OP=CODE[@N|@*|@N-M|@Ts]",
        help="answer that request with a domain error CODE, a JSON-RPC error (a number), "
        "result:TAG (an unknown result) or close (the host closes the connection)",
    )
    faults.add_argument(
        "--delay",
        action="append",
        default=[],
        type=_delay,
        metavar="NAMESPACE.OP=SECONDS",
        help="answer that request late (other frames keep flowing)",
    )
    faults.add_argument("--reject", metavar="CODE", help="answer hello rejected with CODE")
    faults.add_argument(
        "--endpoint-delay", type=float, default=0.0, metavar="S", help="listen S s after launch"
    )
    faults.add_argument(
        "--chaos", type=int, metavar="SEED", help="a hostile host; the same seed, the same schedule"
    )
    p.add_argument("--hello-deadline", type=float, default=5.0, help=argparse.SUPPRESS)
    # Tests learn the fresh launch token through an inherited pipe, never a file or a log line.
    p.add_argument("--token-fd", type=int, default=None, help=argparse.SUPPRESS)
    strict = p.add_mutually_exclusive_group()
    strict.add_argument("--strict", dest="strict", action="store_true", default=True)
    strict.add_argument("--no-strict", dest="strict", action="store_false")
    p.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))


def add_companion_options(p: argparse.ArgumentParser) -> None:
    """More extensions in the same vrOS (vrosdev.companions): a face provider beside a reader;
    and whether that vrOS has face tracking at all."""
    p.add_argument(
        "--also-command",
        action="append",
        default=[],
        metavar="CMD",
        help="launch one more extension beside the first (repeatable, paired with --also-id)",
    )
    p.add_argument("--also-id", action="append", default=[], metavar="ID")
    p.add_argument(
        "--face",
        choices=("simulate", "unsupported"),
        default="simulate",
        help="face tracking (docs/face.md), or a vrOS without it",
    )
    p.add_argument(
        "--also-grant",
        action="append",
        default=[],
        metavar="ID:NAME=VALUE",
        help="a grant of a companion, as --grant",
    )


def companions_from_args(args: argparse.Namespace, first: HostConfig) -> list[Any]:
    import dataclasses

    from vxp.manifest import EXTENSION_ID_RE

    from .companions import Companion

    if len(args.also_command) != len(args.also_id):
        raise SystemExit("vrosdev: each --also-command needs its --also-id")
    grants: dict[str, dict[str, Any]] = {i: {"bus": []} for i in args.also_id}
    for text in args.also_grant:
        ext_id, sep, grant = text.partition(":")
        if not sep or ext_id not in grants:
            raise SystemExit(f"vrosdev: --also-grant {text!r}: ID:NAME=VALUE of an --also-id")
        try:
            name, value = _grant(grant)
        except argparse.ArgumentTypeError as exc:
            raise SystemExit(f"vrosdev: --also-grant: {exc}") from None
        grants[ext_id][name] = [p for p in value.split(",") if p] if name == "bus" else value
    out: list[Any] = []
    for command, ext_id in zip(args.also_command, args.also_id, strict=True):
        if ext_id == first.ext_id or not EXTENSION_ID_RE.fullmatch(ext_id):
            raise SystemExit(f"vrosdev: --also-id {ext_id!r} must be a new extension id")
        config = dataclasses.replace(
            first,
            ext_id=ext_id,
            token=secrets.token_urlsafe(24),
            granted=grants[ext_id],
            settings=[],
            panels={},
            audio_out=None,
        )
        out.append(Companion(config, shlex.split(command), Path.cwd()))
    return out


def default_state_dir() -> Path:
    return Path.home() / ".local" / "state" / "vrosdev"


def config_from_args(args: argparse.Namespace) -> tuple[HostConfig, list[str], Path]:
    """Read the manifest (or --command/--id) and the options into a launch."""
    from vxp.manifest import ManifestError, load_manifest

    token = secrets.token_urlsafe(24)
    granted: dict[str, Any] = {"bus": []}
    settings: list[Any] = []
    panels: dict[str, str] = {}
    if args.manifest is not None or args.installed is not None:
        path = (
            args.manifest
            if args.manifest is not None
            else installed_manifest(args.installed, args.state or default_state_dir())
        )
        try:
            manifest = load_manifest(path)
        except ManifestError as exc:
            raise SystemExit(f"vrosdev: the manifest is refused: {exc}") from None
        folder = path.resolve().parent
        ext_id = manifest.id
        argv = manifest.resolve_command(folder)
        granted = manifest.capabilities.model_dump()
        settings = list(manifest.settings)
        for role, rel in manifest.panels.items():
            panels[role] = load_manifest_panel(role, folder / rel)
        cwd = folder
    else:
        if not args.id:
            raise SystemExit("vrosdev: --command needs --id")
        ext_id = args.id
        argv = shlex.split(args.command)
        cwd = Path.cwd()
    for name, value in args.grant:
        if name == "bus":
            granted["bus"] = [p for p in value.split(",") if p]
        else:
            granted[name] = value
    content_root = args.content_root.resolve() if args.content_root is not None else None
    if content_root is None:
        content_root = Path(tempfile.mkdtemp(prefix="vrosdev-content-"))
    config = HostConfig(
        ext_id=ext_id,
        token=token,
        host_version=args.host_version,
        granted=granted,
        locale=args.locale,
        content_root=str(content_root),
        state_dir=args.state or default_state_dir(),
        settings=settings,
        panels=panels,
        secrets_mode=args.secrets,
        budget_full_every=args.budget_full_every,
        hello_deadline_s=args.hello_deadline,
        strict=args.strict,
        media_mode=args.media,
        audio_out=args.audio_out,
        audio_cache_mib=args.audio_cache_mib,
        no_device=frozenset(args.no_device),
        theme=args.theme,
        reduced_motion=args.reduced_motion,
        faults=list(args.fault),
        delays=list(args.delay),
        reject=args.reject,
        chaos_seed=args.chaos,
        endpoint_delay_s=max(0.0, args.endpoint_delay),
    )
    return config, argv, cwd


def load_manifest_panel(role: str, path: Path) -> str:
    """PAN-1: the host loads and compiles manifest panels at start; a bad one stops the launch."""
    from vrosdev.panels import compile_source

    try:
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SystemExit(f"vrosdev: panel {role}: cannot read {path}: {exc.strerror}") from None
    compiled = compile_source(source)
    if not compiled.ok:
        raise SystemExit(
            f"vrosdev: panel {role} ({path.name}) does not compile:\n{compiled.message}"
        )
    for warning in compiled.warnings:
        log.warning("panel %s: %s", role, warning)
    return source


def installed_manifest(ext_id: str, state: Path) -> Path:
    from .install import installed_folder

    path = installed_folder(state, ext_id) / "manifest.toml"
    if not path.exists():
        raise SystemExit(f"vrosdev: {ext_id} is not installed (no {path})")
    return path


def setup_logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level), format="vrosdev %(levelname)s %(message)s", stream=sys.stderr
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["studio"]:
        from .studio import main as studio_main

        return studio_main(argv[1:])
    args = build_parser().parse_args(argv)
    setup_logging(args.log_level)
    if args.verb == "run":
        return _run(args)
    if args.verb == "install":
        return _install(args)
    if args.verb == "screenshot":
        from .screenshot import main as screenshot_main

        return screenshot_main(args)
    return 2


def _run(args: argparse.Namespace) -> int:
    from .launcher import run_extension

    config, command, cwd = config_from_args(args)
    if args.token_fd is not None:
        tell_token(args.token_fd, config.token)
    steps = None
    if args.script is not None:
        try:
            steps = parse(args.script.read_text(encoding="utf-8"))
        except (OSError, ScriptError) as exc:
            raise SystemExit(f"vrosdev: script {args.script}: {exc}") from None
    interactive = steps is None and sys.stdin.isatty()
    renderer = _preview_renderer(config) if args.preview else None
    config.face_mode = args.face
    also = companions_from_args(args, config)
    return anyio.run(
        lambda: run_extension(
            config,
            command,
            cwd=cwd,
            script=steps,
            interactive=interactive,
            record=args.record,
            renderer_factory=renderer,
            also=also,
        )
    )


def tell_token(fd: int, token: str) -> None:
    """Write the launch token and a newline to descriptor ``fd`` (a test's pipe), then close it."""
    with open(fd, "w", encoding="utf-8", closefd=True) as pipe:
        pipe.write(token + "\n")


def _install(args: argparse.Namespace) -> int:
    from .install import InstallError, install_bundle

    try:
        folder = install_bundle(args.bundle, args.state or default_state_dir())
    except InstallError as exc:
        raise SystemExit(f"vrosdev: {exc}") from None
    print(f"vrosdev: installed {folder.name} into {folder}")
    return 0


def _preview_renderer(config: HostConfig) -> Any:
    """--preview: windows on this desktop (manifest panels shown at once), or in a private
    Xvfb when there is no display (panels open when a script shows them)."""
    import os

    from .host.renderer import renderer_service, theme_settings

    try:
        theme_settings(config.theme, config.reduced_motion)
    except ValueError as exc:
        raise SystemExit(f"vrosdev: {exc}") from None
    desktop = bool(os.environ.get("DISPLAY"))
    # On a desktop each window has a border of "world" round the panel: a click there is a
    # click away from the panel (PAN-26, PAN-32).
    margin = PREVIEW_MARGIN_PX if desktop else 0
    return renderer_service(show_manifest_panels=desktop, margin=margin)


if __name__ == "__main__":
    raise SystemExit(main())
