"""Cueboard's behaviour without I/O: inputs in, effects out (see :mod:`cueboard.core.effects`).

Nothing under this package imports anyio, asyncio, threading, socket or ``vxp.client``, reads
the clock or touches a file; the runtime carries its effects out.
"""
