"""Cueboard's behaviour without I/O: inputs in, effects out (see :mod:`cueboard.core.effects`).

Nothing under this package imports anyio, asyncio, threading, socket or ``vxp.client``, reads
the clock or touches a file; the runtime (:mod:`cueboard.runtime`) carries its effects out.

Where things are:

* :mod:`.app` — :class:`~.app.CueboardCore`, the one entry point (``handle(input, now)``), the
  connection's start-up, the views refresh, timers; :mod:`.handlers` what each event, command,
  setting, bus message and panel callback does.
* :mod:`.tracker` — every request until its final outcome; :mod:`.policy` the one table of what
  each host error means for each request kind (retry, reconcile, final, make room, reload).
* :mod:`.soundboard` and :mod:`.loading` — the library's sounds, the press path, loads;
  :mod:`.prefs` per-sound records in kv; :mod:`.icons` the grid's icons in the asset table.
* :mod:`.props` — what each panel should show and the paced props frames; :mod:`.views`,
  :mod:`.overlay` the values shown; :mod:`.panels` panel callback dispatch; :mod:`.toast`.
* :mod:`.deck` — the media deck (its own package).
* :mod:`.inputs` — what the runtime reports besides host events, and the jobs it runs.
* Values the core decides with: :mod:`.contract` (the panels' contract and its encoding),
  :mod:`.settings`, :mod:`.commands`, :mod:`.library`, :mod:`.i18n` (a catalog already read),
  :mod:`.asset_table`, :mod:`.media_urls`.
"""
