"""The preview process: one panel window, driven over stdin/stdout JSON lines.

Slint's event loop must own the main thread of its process, so the preview runs here, apart from
the host's anyio loop. Protocol (one JSON object per line):

  host -> worker   {"cmd": "open", "source": str, "name": str, "width": int|null,
                    "height": int|null, "theme": {"theme", "reduced_motion", "oled",
                    "is_desktop", "density"}}            (first line, exactly once)
                   {"cmd": "set-props", "props": [[name, {"t","v"}], ...]}
                   {"cmd": "put-asset", "asset": {key, width, height, frames, loop}}
                   {"cmd": "remove-asset", "key": str} | {"cmd": "clear-assets"}
                   {"cmd": "theme", ...ThemeSettings fields}
                   {"cmd": "focus", "element": str} | {"cmd": "blur"}
                   {"cmd": "pointer", "x": int, "y": int} | {"cmd": "click-away"}
                   {"cmd": "type", "text": str}   (real X input: window_input.py)
                   {"cmd": "mouse", "x": int, "y": int}   (a bare click at window pixels)
                   {"cmd": "invoke", "callback": str, "args": [typed...]}
                   {"cmd": "screenshot", "path": str} | {"cmd": "state"} | {"cmd": "quit"}
                   {"cmd": "get", "name": str}   (a root in/out property, JSON-shaped)
                   {"cmd": "flush"}   (apply pending props now, skipping the ~30/s pacing)
                   any command may carry "id"; the worker then answers
                   {"reply": id, "ok": true, ...} or {"reply": id, "ok": false, "error": str}
  worker -> host   {"event": "ready", "width", "height", "warnings": [...]}
                   {"event": "failed", "message": str}   (compile_failed text; then exit 2)
                   {"event": "callback", "callback": str, "args": [typed...]}  -> panel_event
                   {"event": "field-focus", "focused": bool}   (consumed by the host, PAN-25)
                   {"event": "keyboard", "shown": bool, "why": str}   (the VR keyboard)
                   {"event": "violation", "message": str}
                   {"event": "closed"}                    (the window was closed)

Run as `python -m vrosdev.panels.preview_worker` with DISPLAY set (SLINT_BACKEND defaults to
winit-skia-software: Skia on the CPU is as predictable for golden images as Slint's own software
renderer, and it draws colour emoji, which that one does not).
"""

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import IO, Any

os.environ.setdefault("SLINT_BACKEND", "winit-skia-software")
os.environ.setdefault("SLINT_SCALE_FACTOR", "1")

MAX_COMMAND_BYTES = 8 * 1024 * 1024  # a define source is at most 256 KiB (PAN-21); assets less


class Worker:
    def __init__(self, out: IO[str]) -> None:
        self._out = out
        self._assets: dict[str, Any] = {}
        self.window: Any = None
        self.exit_code = 0

    def send(self, message: dict[str, Any]) -> None:
        self._out.write(json.dumps(message, ensure_ascii=False) + "\n")
        self._out.flush()

    def open(self, command: dict[str, Any]) -> bool:
        from vrosdev.panels.window import PanelLoadError, PanelWindow, ThemeSettings

        theme = ThemeSettings(**command.get("theme", {}))
        try:
            self.window = PanelWindow(
                command["source"],
                name=command.get("name", "panel"),
                width=command.get("width"),
                height=command.get("height"),
                margin=int(command.get("margin", 0)),
                theme=theme,
                asset_lookup=self._assets.get,
                on_event=self.send,
            )
        except PanelLoadError as exc:
            self.send({"event": "failed", "message": str(exc)})
            return False
        self.window.show()
        width, height = self.window.size
        self.send(
            {
                "event": "ready",
                "width": width,
                "height": height,
                "warnings": list(self.window.warnings),
            }
        )
        return True

    def handle(self, command: dict[str, Any]) -> None:
        request_id = command.get("id")

        def reply(ok: bool = True, **fields: Any) -> None:
            if request_id is not None:
                self.send({"reply": request_id, "ok": ok, **fields})

        try:
            self._dispatch(command, reply)
        except Exception as exc:  # a failed command must not end the preview
            reply(False, error=f"{type(exc).__name__}: {exc}")

    def _dispatch(self, command: dict[str, Any], reply: Any) -> None:
        from vrosdev.panels.assets import asset_from_wire
        from vrosdev.panels.window import ThemeSettings

        window = self.window
        match command.get("cmd"):
            case "set-props":
                violations = window.set_props(command.get("props", []))
                for message in violations:
                    self.send({"event": "violation", "message": message})
                reply(violations=violations)
            case "put-asset":
                asset = asset_from_wire(command["asset"])
                self._assets[asset.key] = asset
                window.assets_changed(asset.key)
                reply()
            case "remove-asset":
                self._assets.pop(command["key"], None)
                window.assets_changed(command["key"])
                reply()
            case "clear-assets":
                self._assets.clear()
                window.assets_changed(None)
                reply()
            case "theme":
                fields = {k: v for k, v in command.items() if k not in ("cmd", "id")}
                window.set_theme(ThemeSettings(**fields))
                reply()
            case "focus":
                window.focus(command["element"])
                reply()
            case "blur":
                window.blur()
                reply()
            case "pointer" | "type" | "mouse" as verb:

                def input_done(error: str | None) -> None:
                    if error is None:
                        reply()
                    else:
                        reply(False, error=f"PanelHookError: {error}")

                if verb == "pointer":
                    window.input.pointer(int(command["x"]), int(command["y"]), input_done)
                elif verb == "mouse":
                    window.input.mouse(int(command["x"]), int(command["y"]), input_done)
                else:
                    window.input.type(str(command["text"]), input_done)
            case "click-away":
                window.input.click_away()
                reply()
            case "invoke":
                window.invoke(command["callback"], command.get("args", []))
                reply()
            case "screenshot":
                path = Path(command["path"])

                def done(error: str | None) -> None:
                    width, height = window.size
                    if error is None:
                        reply(path=str(path), width=width, height=height)
                    else:
                        reply(False, error=error)

                window.screenshot(path, done)
            case "state":
                reply(
                    keyboard=window.input.keyboard.shown,
                    field_focused=window.field_focused,
                    field_focus_edges=window.field_focus_edges,
                    size=list(window.size),
                    frames={
                        name: window.shown_frames(name) for name in window.interface.properties
                    },
                )
            case "flush":
                window.flush_props()
                reply()
            case "get":
                reply(value=window.prop_value(command["name"]))
            case "quit":
                reply()
            case other:
                reply(False, error=f"unknown command {other!r}")


async def _serve(worker: Worker) -> None:
    """Runs inside Slint's event loop (its asyncio integration), on the main thread: Slint
    objects must never be touched, or even garbage-collected, from another thread (a reader
    thread crashed the worker when the GC freed a Slint struct there)."""
    import slint

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_COMMAND_BYTES)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    try:
        first = json.loads(await reader.readline() or b"{}")
    except json.JSONDecodeError:
        first = {}
    if first.get("cmd") != "open":
        worker.send({"event": "failed", "message": "the first line must be an open command"})
        worker.exit_code = 2
    elif not worker.open(first):
        worker.exit_code = 2
    else:
        while line := await reader.readline():
            if not line.strip():
                continue
            try:
                command = json.loads(line)
            except json.JSONDecodeError:
                worker.send({"event": "violation", "message": "preview: a command was not JSON"})
                continue
            worker.handle(command)
            if command.get("cmd") == "quit":
                break
            await asyncio.sleep(0)  # let Slint run a turn between buffered commands
    slint.quit_event_loop()


def main() -> int:
    # The protocol owns the real stdout; anything native code prints goes to stderr instead.
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    worker = Worker(protocol)
    try:
        import slint
    except (ImportError, RuntimeError) as exc:
        worker.send({"event": "failed", "message": f"internal: Slint cannot start: {exc}"})
        return 3
    slint.run_event_loop(_serve(worker))
    if worker.window is not None:
        worker.window.hide()
        worker.send({"event": "closed"})
    return worker.exit_code


if __name__ == "__main__":
    sys.exit(main())
