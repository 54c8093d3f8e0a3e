"""The dash-tab editor's trim page as vrosdev renders it with real Slint (issue 26, item 3), in
both languages: the demo's scripted scene trims a sound at both ends with fades, and the
rendered panel shows its waveform, drawn by the worker and put as assets, with the kept part
in colour between the two trim marks and the trimmed parts dimmed to grey on either side."""

from __future__ import annotations

from pathlib import Path

import pytest

from cueboard.workers.waveform import KEPT, MARK

pytestmark = [pytest.mark.display, pytest.mark.slow, pytest.mark.usefixtures("needs_x")]


def _shot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, locale: str, theme: str) -> Path:
    import cueboard_demo.__main__ as demo
    from cueboard_demo import content

    content.generate(tmp_path / "content")
    scene = [s for s in demo.SCENES if s[0] == "editor"]
    assert scene, "the demo has no editor scene"
    monkeypatch.setattr(demo, "SCENES", scene)
    (shot,) = demo.screenshots(tmp_path, tmp_path / "shots", [(locale, theme)])
    return shot


@pytest.mark.parametrize(("locale", "theme"), [("en-US", "signal"), ("ja-JP", "daylight")])
def test_the_waveform_shows_the_trimmed_parts_dimmed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, locale: str, theme: str
) -> None:
    from PIL import Image

    image = Image.open(_shot(tmp_path, monkeypatch, locale, theme)).convert("RGB")
    width, height = image.size
    rgb = image.tobytes()

    class Pixels:
        def __getitem__(self, at: tuple[int, int]) -> tuple[int, int, int]:
            i = 3 * (at[1] * width + at[0])
            return (rgb[i], rgb[i + 1], rgb[i + 2])

    px = Pixels()
    kept = [(x, y) for y in range(height) for x in range(width) if px[x, y] == KEPT[:3]]
    assert kept, "no waveform drawn in the editor"
    top, bottom = min(y for _, y in kept), max(y for _, y in kept)
    # the trim points: the two columns marked top to bottom
    marks = sorted(
        x
        for x in range(width)
        if sum(px[x, y] == MARK[:3] for y in range(top, bottom + 1)) >= bottom - top
    )
    start, end = marks[0], marks[-1]
    assert end - start > 100
    middle = (top + bottom) // 2
    trimmed = {px[x, middle] for x in [*range(start - 30, start - 1), *range(end + 2, end + 20)]}
    assert len(trimmed) == 1  # one faint grey, on either side
    (grey,) = trimmed
    assert max(grey) - min(grey) < 24 and grey != KEPT[:3]
    inside = [px[x, middle] for x in range(start + 2, end - 1)]
    assert grey not in inside  # in colour all along (the fades' envelope crosses it in amber)
    assert inside.count(KEPT[:3]) > 0.9 * len(inside)
