"""Shared test configuration: async tests run on asyncio and trio (anyio's plugin).

Hypothesis: the machine (2 cores) is shared with subprocesses the suite itself starts, so
timing health checks and per-example deadlines would fail tests for the machine's load, not
for the code; both are off. The properties and example counts stay as each test sets them.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "cueboard",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.load_profile("cueboard")


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)
