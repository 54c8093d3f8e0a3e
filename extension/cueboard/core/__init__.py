"""Cueboard's behaviour without I/O: inputs in, effects out (see :mod:`cueboard.core.effects`).

Nothing under this package imports anyio, asyncio, threading, socket or ``vxp.client``, reads
the clock or touches a file; the runtime (:mod:`cueboard.runtime`) carries its effects out.

Where things are:

* :mod:`.inputs` and :mod:`.effects` — the two closed unions: everything the core is fed, and
  everything it asks of the world (requests, notices, timers, logs, jobs for workers).
* :mod:`.app` — :class:`~.app.CueboardCore`, the one entry point (``handle(input, now)``) and
  the one router: each input to the feature that owns it, panel callbacks through one table.
* :mod:`.tracker` — every request until its final outcome, its ``done`` the one continuation;
  :mod:`.policy` the one table of what each host error means for each request kind, and
  :mod:`.outcomes` the decision a feature reads (done, later, reconcile, final, ...).
* Features, each an object with a narrow context, none importing the router:
  :mod:`.soundboard` and :mod:`.loading` (sounds, the press path, loads), :mod:`.controls`
  (commands, favourites, settings, the sound editor), :mod:`.prefs` (per-sound records in
  kv), :mod:`.screen` (what the panels show, the status line, the toast), :mod:`.icons`,
  :mod:`.folder` (the sounds folder and its scans), :mod:`.bus_api`, :mod:`.backup`,
  :mod:`.importing`, and :mod:`.deck` (the media deck, its own package).
* Values the core decides with: :mod:`.contract` (the panels' contract and its encoding),
  :mod:`.settings`, :mod:`.commands`, :mod:`.library`, :mod:`.i18n` (a catalog already read),
  :mod:`.asset_table`, :mod:`.media_urls`.
* :mod:`.props`, :mod:`.views`, :mod:`.overlay` — the values shown and the paced props
  frames; :mod:`.panels` checks the callbacks against the contract and decodes them.
"""
