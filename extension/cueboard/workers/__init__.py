"""Cueboard's workers: the library scan, icon decoding and link downloads.

Each reads files or the network and runs off the event loop (a thread or a process); none holds
a client. They stand on :mod:`cueboard.core` for the values they produce and are driven by
:mod:`cueboard.runtime` (``pyproject.toml``'s layers contract).
"""
