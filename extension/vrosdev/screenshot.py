"""``vrosdev screenshot``: a PNG of one panel as the extension itself draws it.

The extension runs for real, headless (a private Xvfb, so a desktop's scaling and window
manager never change the pixels). The panel is shown (``panel_shown``), and the picture is
taken once the extension's props have settled: at least one props frame, then none for
0.5 s (or a fixed ``--wait``), and again after an optional script. Then the extension is shut
down as after any script (shutting_down, up to 2 s, kill).

With ``--capture-after LINE`` the script runs first, up to the step on that line, and the
picture is taken once the panel's props have settled after it: a panel that appears or changes
only after a step (the toast a press opens) is captured at that moment. The steps after that
line do not run.
"""

from __future__ import annotations

import argparse
import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from .host.renderer import PROPS_QUIET_S, PanelRenderer, RendererError
from .script import ScriptError, ScriptRunner, Step, parse

if TYPE_CHECKING:
    from .host.core import ExtensionHost

log = logging.getLogger("vrosdev")
FIRST_PROPS_WITHIN_S = 15.0  # launch, hello (5 s at most), then the extension's first frame


@dataclass
class ScreenshotJob:
    panel: str
    out: Path
    steps: list[Step] | None = None
    wait: float | None = None
    first_props_within: float = FIRST_PROPS_WITHIN_S
    size: tuple[int, int] | None = None
    error: str | None = None
    capture_after: int | None = None  # the script line after whose step the capture happens

    def __post_init__(self) -> None:
        self._up: anyio.Event | None = None  # made in the loop, by whichever task runs first

    def _renderer_up(self) -> anyio.Event:
        if self._up is None:
            self._up = anyio.Event()
        return self._up

    async def serve_renderer(self, host: ExtensionHost) -> None:
        """run_extension's renderer_factory: a renderer on a private display."""
        renderer = PanelRenderer(host, private_display=True)
        self._renderer_up().set()
        await renderer.run()

    async def drive(self, host: ExtensionHost) -> None:
        """run_extension's driver: show, settle, script, settle, capture."""
        from .host.namespaces.panel import panels

        await self._renderer_up().wait()
        renderer: PanelRenderer = host.services["renderer"]
        runner = ScriptRunner(host)
        try:
            await host.ready.wait()
            if self.panel in panels(host):  # a manifest panel; a runtime one opens when defined
                await runner.run_step(Step(0, "show", (self.panel,), f"show {self.panel}"))
            if self.capture_after is not None:
                await self._after_step(host, runner, renderer, self.capture_after)
                return
            if not await self._settled(renderer, self.first_props_within):
                self.error = (
                    f"panel {self.panel} received no props within {self.first_props_within:g} s"
                )
                return
            if self.steps:
                await runner.run(self.steps)
                await self._settled(renderer, 0.0)
            if self.panel not in panels(host):
                self.error = f"there is no panel {self.panel} (not in the manifest, not defined)"
                return
            self.size = await renderer.screenshot(self.panel, self.out)
        except (ScriptError, RendererError) as exc:
            self.error = str(exc)
        except Exception as exc:  # a capture or preview failure: one line, not a traceback
            log.debug("screenshot failed", exc_info=True)
            self.error = f"{type(exc).__name__}: {exc}"

    async def _after_step(
        self, host: ExtensionHost, runner: ScriptRunner, renderer: PanelRenderer, line: int
    ) -> None:
        from .host.namespaces.panel import panels

        await runner.run([step for step in self.steps or [] if step.line_no <= line])
        if not await self._settled(renderer, self.first_props_within):
            self.error = (
                f"panel {self.panel} received no props within {self.first_props_within:g} s "
                f"after the step on line {line}"
            )
            return
        if self.panel not in panels(host):
            self.error = f"there is no panel {self.panel} after the step on line {line}"
            return
        self.size = await renderer.screenshot(self.panel, self.out)

    async def _settled(self, renderer: PanelRenderer, first_within: float) -> bool:
        if self.wait is None:
            return await renderer.wait_props(
                self.panel, first_within=first_within, quiet=PROPS_QUIET_S
            )
        got = await renderer.wait_props(self.panel, first_within=first_within, quiet=0.0)
        if got:
            await anyio.sleep(self.wait)
        return got


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    from .cli import add_host_options

    shot = sub.add_parser("screenshot", help="run the extension headless and save a panel as PNG")
    shot.add_argument("--manifest", type=Path, required=True, help="the extension's manifest.toml")
    shot.add_argument("--panel", default="overlay", help="the panel to capture (default overlay)")
    shot.add_argument("--out", type=Path, required=True, help="the PNG to write")
    shot.add_argument("--script", type=Path, help="steps to run once the props have settled")
    shot.add_argument(
        "--capture-after",
        type=int,
        metavar="LINE",
        help="run the script up to the step on this line first, then capture once the panel's "
        "props settle (for a panel that appears or changes after a step, such as a toast)",
    )
    shot.add_argument(
        "--wait",
        type=float,
        metavar="SECONDS",
        help="after the first props, wait this long instead of for 0.5 s without props",
    )
    add_host_options(shot)
    shot.set_defaults(installed=None, command=None, id=None)


def main(args: argparse.Namespace) -> int:
    from .cli import config_from_args
    from .host.renderer import theme_settings
    from .launcher import run_extension

    config, command, cwd = config_from_args(args)
    try:
        theme_settings(config.theme, config.reduced_motion)
    except ValueError as exc:
        raise SystemExit(f"vrosdev screenshot: {exc}") from None
    steps = None
    if args.script is not None:
        try:
            steps = parse(args.script.read_text(encoding="utf-8"))
        except (OSError, ScriptError) as exc:
            raise SystemExit(f"vrosdev screenshot: script {args.script}: {exc}") from None
    if args.capture_after is not None and not any(
        step.line_no == args.capture_after for step in steps or []
    ):
        raise SystemExit(
            f"vrosdev screenshot: --capture-after {args.capture_after}: "
            + ("no step on that line of the script" if steps else "needs --script")
        )
    out = args.out.resolve()
    job = ScreenshotJob(args.panel, out, steps, args.wait, capture_after=args.capture_after)
    code = anyio.run(
        lambda: run_extension(
            config,
            command,
            cwd=cwd,
            renderer_factory=job.serve_renderer,
            driver=job.drive,
            record=args.record,
        )
    )
    if job.size is None:
        why = job.error or f"the extension exited (code {code}) before {args.panel} was captured"
        print(f"vrosdev screenshot: {why}", file=sys.stderr)
        return 1
    width, height = job.size
    log.info("wrote %s (%dx%d)", out, width, height)
    return 0
