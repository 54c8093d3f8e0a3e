"""What the panels show: the overlay's and the dash-tab's values, the status line, the toast,
and when the props go out.

A feature object whose context is what it shows: the soundboard, the icons, the deck's view,
the preferences' figures, the connection's facts, and the import's progress as a callable. A
change anywhere marks it (:meth:`Screen.changed`); the router then asks for one refresh, which
the props model paces.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from vxp.models import audio

from .browse import FOLDER_KEY, Browser
from .controls import NO_FAVOURITES, Controls
from .deck import DeckCore, DeckView, deck_props
from .effects import Effect, Log, Notice, Wake
from .i18n import Catalog
from .icons import IconsModel
from .inputs import IconsDecoded, WaveformDrawn
from .link import HostLink
from .outcomes import Outcome
from .overlay import played_text
from .panels import Handler
from .places import PLAYING_COLUMNS, header, playing_name
from .props import PropsModel
from .records import SoundPrefs
from .search import PAGE_SIZE
from .soundboard import EMPTY_SLOT
from .toast import Toast
from .tracker import Tracker
from .views import ViewedBoard, dash_values, overlay_values, usage_values
from .waveform import UNEDITED, WaveformModel, WaveWanted, edit_of

__all__ = ["BRIEF", "STATUS", "VIEWS", "Screen"]

STATUS_RECONCILE_S = 1.0
VIEWS, STATUS, BRIEF = "views", "status", "brief"
BRIEF_S = 2.0  # how long feedback that needs no action stays on the status line
BRIEF_NOTICES = frozenset({EMPTY_SLOT, NO_FAVOURITES})


class ScreenBoard(ViewedBoard, Protocol):
    """What the screen reads and calls of the soundboard: what the views read, and the status
    line, the change flag and what is playing, which it keeps current."""

    changed: bool

    def expire(self, now: float) -> bool: ...

    def reconcile(self, now: float) -> list[Effect]: ...

    def set_status(self, key: str | None, level: int = 0, **params: str | int) -> None: ...


class ScreenPrefs(Protocol):
    """What the screen reads of the per-sound preferences: their size in kv, for the dash, and
    a sound's edit, for its waveform."""

    def kv_bytes(self) -> int: ...

    def get(self, rel_path: str) -> SoundPrefs: ...


class Screen:
    def __init__(
        self,
        tracker: Tracker,
        board: ScreenBoard,
        prefs: ScreenPrefs,
        props: PropsModel,
        toast: Toast,
        icons: IconsModel,
        deck: DeckCore,
        link: HostLink,
        *,
        import_progress: Callable[[], str],
    ) -> None:
        self._tracker = tracker
        self._board = board
        self._prefs = prefs
        self.props = props
        self.toast = toast
        self._icons = icons
        # the host's one asset table: the icons' and the waveform's plans take turns
        self.waveform = WaveformModel(tracker, icons.table, busy=lambda: icons.applying)
        self._deck = deck
        self._link = link
        self._import_progress = import_progress
        self.dash = Browser()  # the dash-tab's own place and search
        self.selected: str | None = None
        self.editor_page = 0  # the dash-tab editor's page (0 volume and mode, 1 trim)
        self._views_at: float | None = None
        self._status_at: float | None = None
        self._dirty = False
        self._deck_shown: tuple[DeckView, Catalog] | None = None

    def changed(self) -> None:
        self._dirty = True

    # -- after every input ----------------------------------------------------------------

    def show_notices(self, out: list[Effect], now: float) -> list[Effect]:
        """Notices go to the status line (a log line says which)."""
        kept: list[Effect] = []
        for effect in out:
            if isinstance(effect, Notice):
                self._board.status = effect
                self._dirty = True
                kept.append(Log(logging.INFO, f"notice {effect.key}"))
                if effect.key in BRIEF_NOTICES:
                    kept.append(Wake(BRIEF, now + BRIEF_S))
            else:
                kept.append(effect)
        return kept

    def schedule(self, now: float) -> list[Effect]:
        """One status check while something plays; one refresh of the views after a change."""
        out: list[Effect] = []
        if self._board.playing and self._status_at is None:
            out.append(self._status_wake(now))
        icons, wave = self._icons, self.waveform
        if (
            self._board.changed
            or icons.changed
            or wave.changed
            or self._dirty
            or self.props.waiting
        ):
            self._board.changed = icons.changed = wave.changed = False
            self._dirty = False
            if self._views_at is None:
                self._views_at = now
                out.append(Wake(VIEWS, now))
        return out

    def _status_wake(self, now: float) -> Wake:
        self._status_at = now + STATUS_RECONCILE_S
        return Wake(STATUS, self._status_at)

    # -- ticks ----------------------------------------------------------------------------

    def on_views(self, now: float) -> list[Effect]:
        self._views_at = None
        return self.refresh(now)

    def on_status(self, now: float) -> list[Effect]:
        """Plays whose time is over end; the host's status rows are asked for."""
        self._status_at = None
        out: list[Effect] = []
        self._board.expire(now)
        showing = self.toast.expire(now)
        self._dirty = True
        if self._link.connected:
            out += self._board.reconcile(now)
        if showing:
            out.append(self._status_wake(now))
        return out

    def on_brief(self) -> list[Effect]:
        status = self._board.status
        if status is not None and status.key in BRIEF_NOTICES:
            self._board.set_status(None)
        return []

    # -- the views ------------------------------------------------------------------------

    def refresh(self, now: float, *, flush: bool = False) -> list[Effect]:
        """Recompute what the panels show; the props model paces what is sent."""
        cat = self._link.catalog
        if cat is None:
            return []
        board, props = self._board, self.props
        shown, blank = self._icons.shown, self._icons.blank_ok
        props.update("overlay", overlay_values(board, cat, shown, now=now, blank=blank))
        out = self.waveform.want(self._waveform_wanted(), now)
        dash = dash_values(
            board, cat, browser=self.dash, selected=self.selected, page=self.editor_page,
            waveform=self.waveform.keys_for(self.selected),
            length=self.length_of(self.selected or ""),
        )  # fmt: skip
        dash["import-progress"] = self._import_progress()
        if props.is_visible("dash-tab"):  # diagnostics only while someone looks
            note = "" if self._link.overlays else cat.t("dash.toast_needs_overlays")
            dash.update(
                usage_values(
                    cat,
                    assets=(len(self._icons.table), self._icons.table.used_bytes),
                    kv_bytes=self._prefs.kv_bytes(),
                    toast_note=note,
                )
            )
        props.update("dash-tab", dash)
        deck = self._deck.view()
        if self._deck_shown != (deck, cat):  # most refreshes are not the deck's
            self._deck_shown = (deck, cat)
            for panel, values in deck_props(deck, cat).items():
                for name, wire in values.items():
                    props.set_wire(panel, name, wire)
        if not self._link.connected:
            return out
        return out + (props.flush(now) if flush else props.due(now))

    def _waveform_wanted(self) -> WaveWanted | None:
        """The selected sound's, as edited, while the editor's trim page is in view."""
        board = self._board
        st = board.states.get(self.selected or "")
        if (
            st is None
            or self.editor_page != 1
            or st.sound.problem is not None
            or not self._link.connected
            or not self.props.is_visible("dash-tab")
        ):
            return None
        rel = st.sound.rel_path
        path = board.library.root / rel
        return WaveWanted(rel, path, st.sound.fingerprint, edit_of(self._prefs.get(rel)))

    def show_toast(self, rel: str, name: str, now: float) -> list[Effect]:
        """The toast names what just started playing, where and how loud."""
        if not self._board.settings.now_playing_toast or not self._link.overlays:
            return []
        playing = self._board.playing.get(rel)
        channels = ""
        if playing is not None and self._link.catalog is not None:
            own = self._board.prefs.get(rel).targets
            channels = played_text(self._link.catalog, playing.channels, own)
        icon, blank = self._icons.shown.get(rel), self._icons.blank_ok
        out = self.toast.show(playing_name(name), now, channels=channels, icon=icon, blank=blank)
        if self._status_at is None:
            out.append(self._status_wake(now))
        return out

    def show_place(self, now: float, note: str | None = None) -> list[Effect]:
        """With the overlay closed, the toast says where a command's paging or folder change
        landed ("Memes · 2 / 3", and which place of the strip), or ``note`` (a catalog key) when
        it went nowhere. The now-playing setting does not hide it: it answers a press."""
        cat = self._link.catalog
        if cat is None or not self._link.overlays or self.props.is_open("overlay"):
            return []
        board = self._board
        view = board.browser.view(board.shelf)
        name, line = header(cat, view, board.shelf, PLAYING_COLUMNS), ""
        if note is not None:
            name = cat.t(note)
        elif view.folder is not None:
            place = board.shelf.find(view.folder.key) or 0
            line = cat.t("toast.place_of", place=place + 1, places=len(board.shelf.folders))
        out = self.toast.show(name, now, channels=line, blank=self._icons.blank_ok)
        if self._status_at is None:
            out.append(self._status_wake(now))
        return out

    def dismiss(self, now: float) -> list[Effect]:
        self._board.set_status(None)
        return []

    # -- the dash-tab's library -----------------------------------------------------------

    def library_search(self, query: str, now: float) -> list[Effect]:
        self.dash.search(query)
        return self._mark()

    def library_turn(self, delta: int, now: float) -> list[Effect]:
        self.dash.turn(self._board.shelf, delta)
        return self._mark()

    def library_open(self, key: str, now: float) -> list[Effect]:
        self.dash.open(self._board.shelf, key)
        return self._mark()

    def select(self, key: str, now: float) -> list[Effect]:
        self.selected = key if key in self._board.states else None
        return self._mark()

    def editor_routes(self, controls: Controls) -> dict[tuple[str, str], Handler]:
        """The dash-tab editor's trim page: its page turn, and its edits (the controls')."""

        def set_edit(key: str, field: int, ms: int, now: float) -> list[Effect]:
            return controls.set_edit(key, field, ms, now, length=self.length_of(key))

        def trim_at(key: str, ms: int, now: float) -> list[Effect]:
            return controls.trim_at(key, ms, now, length=self.length_of(key))

        return {
            ("dash-tab", "show-editor-page"): self.show_editor_page,
            ("dash-tab", "set-sound-edit"): set_edit,
            ("dash-tab", "trim-sound-at"): trim_at,
            ("dash-tab", "set-sound-targets"): controls.set_targets,
            ("dash-tab", "reset-sound-plays"): controls.reset_plays,
        }

    def length_of(self, key: str) -> int | None:
        """A sound's file's length: as read for its waveform, else the host's once it loaded
        the file itself (an edited sound loads its render, whose length is the edit's)."""
        known = self.waveform.length_of(key)
        st = self._board.states.get(key)
        if known is not None or st is None or edit_of(self._prefs.get(key)) != UNEDITED:
            return known
        return st.duration_ms

    def on_drawn(self, item: IconsDecoded | WaveformDrawn, now: float) -> list[Effect]:
        """What a worker drew for the panels: the grid's icons, or the editor's waveform."""
        if isinstance(item, IconsDecoded):
            return self._icons.on_decoded(item, now)
        return self.waveform.on_drawn(item, now)

    def connection_lost(self) -> None:
        """The host's asset table died with the connection (AST-17): all is put again."""
        self._icons.connection_lost()
        self.waveform.connection_lost()

    def show_editor_page(self, page: int, now: float) -> list[Effect]:
        self.editor_page = 1 if page == 1 else 0
        return self._mark()

    def follow(self, key: str) -> None:
        """The dash-tab's list turns to the page a sound was moved to, when it shows that
        sound's folder (not a search)."""
        board = self._board
        st = board.states.get(key)
        dash = self.dash
        if st is None or dash.query or not board.shelf.folders:
            return
        dash.where(board.shelf)  # the folder it shows, named
        if dash.folder != FOLDER_KEY + st.sound.category:
            return
        dash.page = board.position(key)[0] // PAGE_SIZE
        self._dirty = True

    def _mark(self) -> list[Effect]:
        self._dirty = True
        return []

    def refresh_devices(self, now: float) -> list[Effect]:
        """Channels, then devices, into the dash-tab (read only while it is shown)."""
        if not self._link.connected or not self._board.audio_granted:
            return []
        return self._tracker.request(
            now, "audio", audio.AudioListChannels, expect=audio.AudioChannels,
            done=self._channels_read,
        )  # fmt: skip

    def _channels_read(self, outcome: Outcome) -> list[Effect]:
        if not outcome.ok:
            return []
        cat = self._link.catalog
        if cat is not None:
            rows = [
                (c.channel, c.endpoint or "", cat.t(_channel_state(c)), c.available)
                for c in outcome.result.channels
            ][:16]
            self.props.update("dash-tab", {"channels": rows})
            self._dirty = True
        return self._tracker.request(
            outcome.now, "audio", audio.AudioListDevices, expect=audio.AudioDevices,
            done=self._devices_read,
        )  # fmt: skip

    def _devices_read(self, outcome: Outcome) -> list[Effect]:
        if outcome.ok:
            r = outcome.result
            rows = [(e.name or e.id, e.id == r.default_endpoint) for e in r.endpoints][:64]
            self.props.update("dash-tab", {"devices": rows})
            self._dirty = True
        return []


def _channel_state(channel: audio.ChannelInfo) -> str:
    if channel.armed:
        return "channel.armed"
    return "channel.available" if channel.available else "channel.unavailable"
