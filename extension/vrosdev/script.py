"""Scripted steps: a person at a prompt, or a test, playing the user and vrOS.

One step a line, ``#`` starts a comment::

    sleep SECONDS                 wait-for METHOD[.OP] [TIMEOUT] [TEXT]   (TEXT: in its params)
    settle [QUIET] [TIMEOUT]      (no frame for QUIET s, default 0.5, and no load decoding)
    invoke COMMAND                click PANEL CALLBACK [JSON-ARGS]
    show PANEL / hide PANEL       locale LOCALE
    setting KEY JSON-VALUE        event JSON
    bus-publish TOPIC JSON        lifecycle detached|attached|quitting
    media-pause KEY               media-volume KEY N
    media-stop KEY                media-control KEY ACTION [VALUE] generation=N
    focus PANEL ELEMENT           blur PANEL
    pointer PANEL X Y             click-away PANEL     (a real click into / away from it)
    type PANEL TEXT               (keys of the VR keyboard, which must be up; TEXT to the end)
    face-select, face-grant, face-wait, drop     (vrosdev.face_steps)
    kill                          (SIGKILL the extension: a crash, for tests)
    disconnect [forget-sounds]    (drop the connection without shutting_down, as a host restart;
                                   forget-sounds also unloads every sound)
    fault NAMESPACE.OP CODE [N|*|N-M|Ts]   (as --fault; counts requests from this step on)
    unfault [NAMESPACE.OP]        delay NAMESPACE.OP SECONDS
    fail-load CODE [SOUND]        (the next audio_loaded, or the one of SOUND: an id or a part
                                   of the file's path, comes out failed with CODE)
    fail-media KEY [CODE]         (KEY's media session fails now, code default network)
    chaos-end                     (--chaos: the oversized last frame, then wait for a reconnect)
    shutdown

JSON-ARGS of ``click`` are plain JSON values (true, 3, 0.5, "text"), typed as the panel_event
args are (bool, i64, f64, str), or already-typed ``{"t":…,"v":…}`` values.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio

from .steps import (
    INPUT_VERBS,
    ScriptError,
    Step,
    json_arg,
    parse,
    parse_line,
    transcript_text,
    typed_arg,
)

if TYPE_CHECKING:
    from .host.core import ExtensionHost

__all__ = [
    "ScriptError", "ScriptRunner", "Step", "parse", "parse_line", "transcript_text", "typed_arg",
]  # fmt: skip


class ScriptRunner:
    """Runs steps against a host. ``shutdown`` (or the end of a script) is the caller's job."""

    def __init__(self, host: ExtensionHost) -> None:
        self.host = host
        self.actions: dict[str, Callable[[Step], Awaitable[None]]] = {
            "sleep": self._sleep,
            "wait-for": self._wait_for,
            "settle": self._settle,
            "invoke": self._invoke,
            "click": self._click,
            "show": self._show,
            "hide": self._hide,
            "locale": self._locale,
            "setting": self._setting,
            "event": self._event,
            "bus-publish": self._bus_publish,
            "lifecycle": self._lifecycle,
            "media-pause": self._media,
            "media-volume": self._media,
            "media-stop": self._media,
            "media-control": self._media,
            "focus": self._focus,
            "blur": self._blur,
            "kill": self._kill,
            "disconnect": self._disconnect,
            "fault": self._fault,
            "unfault": self._unfault,
            "delay": self._delay,
            "fail-load": self._fail_load,
            "fail-media": self._fail_media,
            "chaos-end": self._chaos_end,
        }
        from .face_steps import ACTIONS as FACE_ACTIONS

        for verb, action in FACE_ACTIONS.items():
            self.actions[verb] = lambda step, act=action: act(self.host, step)
        for verb in INPUT_VERBS:
            self.actions[verb] = self._user_input

    async def run(self, steps: list[Step]) -> bool:
        """Run until a ``shutdown`` step; True when one was reached."""
        for step in steps:
            if step.verb == "shutdown":
                return True
            await self.run_step(step)
        return False

    async def run_step(self, step: Step) -> None:
        await self.host.ready.wait()
        self.host.recorder.note(f"script: {transcript_text(step)}")
        await self.actions[step.verb](step)

    async def _sleep(self, step: Step) -> None:
        await anyio.sleep(float(step.args[0]))

    async def _wait_for(self, step: Step) -> None:
        want = step.args[0]
        timeout = float(step.args[1]) if len(step.args) > 1 else 10.0
        text = step.args[2] if len(step.args) > 2 else ""
        method, _, op = want.partition(".")
        seen = anyio.Event()

        def watch(m: str, params: Any) -> None:
            if m != method or (op and not (isinstance(params, dict) and params.get("op") == op)):
                return
            # TEXT picks one request of many alike (a bus topic, a panel's props): it is looked
            # for in the params as compact JSON, non-ASCII as is.
            if not text or text in json.dumps(params, ensure_ascii=False, separators=(",", ":")):
                seen.set()

        self.host.on_request.append(watch)
        try:
            with anyio.move_on_after(timeout) as scope:
                await seen.wait()
            if scope.cancelled_caught:
                what = f"{want} with {text!r}" if text else want
                raise ScriptError(f"line {step.line_no}: no {what} within {timeout:g} s")
        finally:
            self.host.on_request.remove(watch)

    async def _settle(self, step: Step) -> None:
        """Wait until the extension has gone quiet: what a person would wait for. Quiet is no
        frame for QUIET s, no load decoding, and the extension's processes waiting, not running,
        for several looks in a row (vrosdev.proc_state: a starved process is silent too)."""
        from .proc_state import waiting

        quiet = float(step.args[0]) if step.args else 0.5
        timeout = float(step.args[1]) if len(step.args) > 1 else 30.0
        recorder = self.host.recorder
        pending: set[str] = self.host.services.setdefault("audio_pending", set())
        pid: int | None = self.host.services.get("extension_pid")
        with anyio.move_on_after(timeout) as scope:
            while True:
                idle = time.monotonic() - recorder.last_frame_at
                if idle >= quiet and not pending and (pid is None or await waiting(pid)):
                    if time.monotonic() - recorder.last_frame_at >= quiet:  # none came meanwhile
                        return
                    continue
                await anyio.sleep(max(0.05, quiet - idle))
        if scope.cancelled_caught:
            raise ScriptError(f"line {step.line_no}: not settled within {timeout:g} s")

    async def _invoke(self, step: Step) -> None:
        from .host.namespaces.commands import invoke

        await invoke(self.host, step.args[0])

    async def _click(self, step: Step) -> None:
        panel, callback = step.args[0], step.args[1]
        raw = json_arg(step.args[2], step.line_no) if len(step.args) > 2 else []
        values = raw if isinstance(raw, list) else [raw]
        args = [typed_arg(v) for v in values]
        await self.host.emit(
            {"event": "panel_event", "panel": panel, "callback": callback, "args": args}
        )

    async def _show(self, step: Step) -> None:
        await self._visibility(step.args[0], True)

    async def _hide(self, step: Step) -> None:
        await self._visibility(step.args[0], False)

    async def _visibility(self, name: str, visible: bool) -> None:
        from .host.namespaces.panel import panels

        state = panels(self.host).get(name)
        if state is None:
            raise ScriptError(f"no panel {name!r}")
        if state.visible == visible:
            return  # panel_shown/panel_hidden stay paired (EVT-7)
        state.visible = visible
        await self.host.emit({"event": "panel_shown" if visible else "panel_hidden", "panel": name})
        renderer = self.host.services.get("renderer")
        if renderer is not None:
            await renderer.visibility_changed(name)

    async def _locale(self, step: Step) -> None:
        self.host.config.locale = step.args[0]
        await self.host.emit({"event": "locale_changed", "locale": step.args[0]})

    async def _setting(self, step: Step) -> None:
        from vxp.settings_rules import check_value

        from .host.namespaces.kv import store_for

        key, value = step.args[0], json_arg(step.args[1], step.line_no)
        setting = next((s for s in self.host.config.settings if s.key == key), None)
        if setting is None:
            raise ScriptError(f"line {step.line_no}: no setting {key!r} in the manifest")
        reason = check_value(setting, value)
        if reason is not None:
            raise ScriptError(f"line {step.line_no}: {key}: {reason}")
        store_for(self.host).set(key, value)
        await self.host.emit({"event": "settings_changed", "key": key, "value": value})

    async def _event(self, step: Step) -> None:
        event = json_arg(step.args[0], step.line_no)
        conn = self.host.connection
        if conn is not None:
            await conn.send({"jsonrpc": "2.0", "method": "event", "params": event})

    async def _bus_publish(self, step: Step) -> None:
        from .host.namespaces.bus import deliver

        await deliver(self.host, step.args[0], json_arg(step.args[1], step.line_no))

    async def _lifecycle(self, step: Step) -> None:
        from .host.namespaces.bus import LIFECYCLE, deliver

        if step.args[0] not in ("detached", "attached", "quitting"):
            raise ScriptError(f"line {step.line_no}: lifecycle is detached, attached or quitting")
        await deliver(self.host, LIFECYCLE, {"state": step.args[0]})

    async def _media(self, step: Step) -> None:
        control = self.host.services.get("media_control")
        if control is None:
            raise ScriptError(f"line {step.line_no}: media is not simulated")
        await control(step)

    async def _disconnect(self, step: Step) -> None:
        if step.args and step.args[0] != "forget-sounds":
            raise ScriptError(f"line {step.line_no}: disconnect takes only forget-sounds")
        if step.args:
            forget = self.host.services.get("audio_forget")
            if forget is not None:
                forget()
        conn = self.host.connection
        if conn is not None:
            self.host.ready = anyio.Event()
            await conn.close()
        await self.host.ready.wait()  # the extension's next hello

    async def _kill(self, step: Step) -> None:
        kill = self.host.services.get("kill_extension")
        if kill is None:
            raise ScriptError(f"line {step.line_no}: no extension process to kill")
        kill()

    async def _focus(self, step: Step) -> None:
        renderer = self.host.services.get("renderer")
        if renderer is None:
            raise ScriptError(f"line {step.line_no}: focus needs the panel renderer (--preview)")
        await renderer.focus(step.args[0], step.args[1])

    async def _user_input(self, step: Step) -> None:
        """`pointer PANEL X Y`, `click-away PANEL`, `type PANEL TEXT` (real X input)."""
        renderer = self.host.services.get("renderer")
        if renderer is None:
            raise ScriptError(f"line {step.line_no}: {step.verb} needs the panel renderer")
        name = step.args[0]
        if step.verb == "pointer":
            try:
                x, y = int(step.args[1]), int(step.args[2])
            except ValueError:
                raise ScriptError(f"line {step.line_no}: pointer PANEL X Y in pixels") from None
            await renderer.user_input(name, "pointer", x, y)
        elif step.verb == "click-away":
            await renderer.user_input(name, "click_away")
        else:
            await renderer.user_input(name, "type_text", step.args[1])

    async def _blur(self, step: Step) -> None:
        renderer = self.host.services.get("renderer")
        if renderer is None:
            raise ScriptError(f"line {step.line_no}: blur needs the panel renderer (--preview)")
        await renderer.blur(step.args[0])

    async def _fault(self, step: Step) -> None:
        from .host.faults import FaultSpecError, parse_fault

        args = list(step.args)
        when = f"@{args[2]}" if len(args) > 2 else ""
        try:
            rule = parse_fault(f"{args[0]}={args[1]}{when}")
        except FaultSpecError as exc:
            raise ScriptError(f"line {step.line_no}: {exc}") from None
        self.host.hook.plan.add(rule)

    async def _unfault(self, step: Step) -> None:
        from .host.faults import FaultSpecError, parse_target

        plan = self.host.hook.plan
        if not step.args:
            plan.remove()
            return
        try:
            method, op = parse_target(step.args[0])
        except FaultSpecError as exc:
            raise ScriptError(f"line {step.line_no}: {exc}") from None
        plan.remove(method, op)

    async def _delay(self, step: Step) -> None:
        from .host.faults import FaultSpecError, parse_delay

        try:
            method, op, seconds = parse_delay(f"{step.args[0]}={step.args[1]}")
        except FaultSpecError as exc:
            raise ScriptError(f"line {step.line_no}: {exc}") from None
        if seconds:
            self.host.hook.plan.delays[method, op] = seconds
        else:
            self.host.hook.plan.delays.pop((method, op), None)

    async def _fail_load(self, step: Step) -> None:
        from .host.faults import LoadFailure

        args = list(step.args)
        sound = args[1] if len(args) > 1 else None
        self.host.hook.plan.load_failures.append(LoadFailure(args[0], sound))

    async def _fail_media(self, step: Step) -> None:
        fail = self.host.services.get("media_fail")
        if fail is None:
            raise ScriptError(f"line {step.line_no}: media is not simulated")
        args = list(step.args)
        code = args[1] if len(args) > 1 else "network"
        why = await fail(args[0], code)
        if why is not None:
            raise ScriptError(f"line {step.line_no}: {why}")

    async def _chaos_end(self, step: Step) -> None:
        from .launcher import end_chaos

        if not await end_chaos(self.host):
            raise ScriptError(f"line {step.line_no}: chaos-end needs --chaos, once")
