"""Keep links out of the log while Cueboard speaks HTTP.

httpx logs ``HTTP Request: GET <the whole URL>`` at INFO, and httpcore every response's headers
at DEBUG (a redirect's ``Location`` is a link too). A link to a sound or an icon may carry a
token, so while :func:`hiding_http_logs` is active those records are dropped. Other code in the
same process (a test's own client, say) keeps its logs.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_hiding: ContextVar[bool] = ContextVar("cueboard_hiding_http_logs", default=False)

# A filter acts only on the logger a record is logged to, not on its children: every one.
_HTTP_LOGGERS = (
    "httpx",
    "httpcore.connection",
    "httpcore.connection_pool",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
)


class _HideWhileFetching(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not _hiding.get()


_FILTER = _HideWhileFetching()


@contextmanager
def hiding_http_logs() -> Iterator[None]:
    """Drop httpx's and httpcore's records made in this context (this task and its children)."""
    for name in _HTTP_LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
    marked = _hiding.set(True)
    try:
        yield
    finally:
        _hiding.reset(marked)
