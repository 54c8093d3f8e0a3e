"""The Window vrosdev wraps around a panel so the preview can drive it.

A panel root is a plain component (docs/protocol-notes.md#r29): the host places it. The preview does
the same: it
appends a generated `Window` that holds the root as a child, sized as the host chose (or the
root's preferred size), and forwards the root's settable properties, callbacks and public
functions under a `vp-` prefix (`out` properties too, read-only, so the host can read what a
panel reports). The prefix keeps panel names such as `title` or `background`
from clashing with Window's own properties. The theme global is re-exported under an alias so
the host can reach it from Python (Slint only exposes exported globals).
"""

from dataclasses import dataclass

from vrosdev.panels.declarations import PanelInterface
from vrosdev.theme import THEME_IMPORT

HOST_WINDOW = "VrosdevHostWindow"
HOST_THEME = "VrosdevHostTheme"
FORWARD_PREFIX = "vp-"
FOCUS_FUNCTION_PREFIX = "focus-"
DEFAULT_SIZE_PX = (480, 320)  # when neither the host nor the panel gives a size


@dataclass(frozen=True)
class HostWindowSource:
    source: str
    component: str
    title: str  # unique X window name, used to find the window for screenshots


def forwarded(name: str) -> str:
    return FORWARD_PREFIX + name


POINTER_PRESSED = "vrosdev-pressed"  # a press on the panel that no element of it took
POINTER_AWAY = "vrosdev-away"  # a press in the margin: a click away from the panel


def _size(axis: str, chosen: int | None, fallback: int, margin: int) -> str:
    if chosen is not None:
        inner = f"{int(chosen)}px"
    else:
        preferred = f"panel.preferred-{axis}"
        inner = f"({preferred} > 0 ? {preferred} : {fallback}px)"
    return f"{axis}: {inner} + {2 * margin}px;"


def host_window_source(
    source: str,
    interface: PanelInterface,
    *,
    title: str,
    width: int | None = None,
    height: int | None = None,
    margin: int = 0,
) -> HostWindowSource:
    """``margin``: pixels of "world" around the panel (the live preview's), where a press is a
    click away from it (PAN-26, PAN-32); screenshots use none."""
    if interface.root is None:
        raise ValueError("the panel has no root component")
    lines = [
        "",
        f'export {{ ExtTheme as {HOST_THEME} }} from "{THEME_IMPORT}";',
        f"export component {HOST_WINDOW} inherits Window {{",
        f'    title: "{title}";',
        "    background: transparent;",
        f"    {_size('width', width, DEFAULT_SIZE_PX[0], margin)}",
        f"    {_size('height', height, DEFAULT_SIZE_PX[1], margin)}",
        "    out property <length> vrosdev-width: self.width;",
        "    out property <length> vrosdev-height: self.height;",
        f"    callback {POINTER_PRESSED}();",
        f"    callback {POINTER_AWAY}();",
    ]
    box = f"x: {margin}px; y: {margin}px; width: parent.width - {2 * margin}px;"
    box += f" height: parent.height - {2 * margin}px;"
    if margin:
        lines.append(f"    TouchArea {{ clicked => {{ root.{POINTER_AWAY}(); }} }}")
    lines += [
        f"    TouchArea {{ {box}",
        "        pointer-event(e) => {",
        f"            if (e.kind == PointerEventKind.down) {{ root.{POINTER_PRESSED}(); }}",
        "        }",
        "    }",
        f"    panel := {interface.root.name} {{ {box} }}",
    ]
    for decl in interface.properties.values():
        if decl.access in ("in", "in-out", "out") and decl.type_text:
            lines.append(
                f"    {decl.access} property <{decl.type_text}> {forwarded(decl.name)}"
                f" <=> panel.{decl.name};"
            )
    for cb in interface.callbacks.values():
        lines.append(f"    callback {forwarded(cb.name)} <=> panel.{cb.name};")
    for fn in interface.public_functions:
        lines.append(f"    public function {forwarded(fn)}() {{ panel.{fn}(); }}")
    lines.append("}")
    return HostWindowSource(source + "\n" + "\n".join(lines) + "\n", HOST_WINDOW, title)
