"""Shared test configuration: async tests run on asyncio and trio (anyio's plugin).

Hypothesis: the machine (2 cores) is shared with subprocesses the suite itself starts, so
timing health checks and per-example deadlines would fail tests for the machine's load, not
for the code; both are off. The properties and example counts stay as each test sets them.

`make test` is derandomized: every run tries the same examples, so a red CI run means a change
broke something, not that a new seed found an old bug. `make fuzz` (profile "explore") draws
fresh examples on every run to go looking for those; paste a failure's blob into a test.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "cueboard",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
    derandomize=True,
    database=None,
)
settings.register_profile("explore", settings.get_profile("cueboard"), derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "cueboard"))


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--leak-ledger",
        metavar="DIR",
        type=Path,
        help="every process of this run writes its share for the leak sweep here, and the sweep "
        "reads every share (tests/leaks.py); make test passes the same folder to the suite's "
        "run and to the sweep's run after it",
    )


@pytest.fixture(scope="session", autouse=True)
def _leak_ledger(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> None:
    """With ``--leak-ledger``, this process (a worker, or the only one) writes its share."""
    from tests import leaks

    folder: Path | None = request.config.getoption("--leak-ledger")
    if folder is not None:
        leaks.open_ledger(folder.resolve(), tmp_path_factory.getbasetemp())


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Keep what pytest captured of every test (its processes' output included) for the leak
    sweep (tests/leaks.py), pass or fail."""
    from tests import leaks

    for title, text in report.sections:
        leaks.capture(f"{report.nodeid} [{title}]", text)
    if report.failed:
        leaks.capture(f"{report.nodeid} [{report.when} failure]", report.longreprtext)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The leak sweep runs after everything else collected, whatever order the paths came in.

    On pytest-xdist workers, the files with slow tests come first (in their collected order,
    then the others in theirs): the workers take files in this order, and a long file taken
    last would leave the other worker idle. A worker holds only its share of the run: there
    the sweep is skipped, and runs as a run of its own after the workers (make test)."""
    sweep = [item for item in items if item.nodeid.startswith(LEAK_SWEEP)]
    items[:] = [item for item in items if not item.nodeid.startswith(LEAK_SWEEP)] + sweep
    if os.environ.get("PYTEST_XDIST_WORKER"):
        slow = {_scope(item.nodeid) for item in items if item.get_closest_marker("slow")}
        items.sort(key=lambda item: _scope(item.nodeid) not in slow)
        skip = pytest.mark.skip(
            reason="the leak sweep never runs on one worker's share: run it after the suite "
            "(make test: pytest tests/zz_sweep --leak-ledger DIR)"
        )
        for item in sweep:
            item.add_marker(skip)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection built (every test module, the libraries they import, the items) lives
    until the process ends, yet the collector's full passes walked all of it again and again
    while in-memory tests allocated: frozen, those passes see only what the tests made."""
    gc.collect()
    gc.freeze()


LEAK_SWEEP = "tests/zz_sweep/test_leak_sweep.py"
# Folders whose tests share session fixtures worth building once (a wheelhouse and a bundle):
# one worker runs all of each.
ONE_WORKER_FOLDERS = ("tests/packaging/",)
# Long files of independent tests with no module fixture: their tests are handed out one by one,
# so neither worker waits alone at the end of the run on one of them.
SPREAD_FILES = ("tests/cueboard/core/test_fault_decisions.py", "tests/bench/test_benches_quick.py")


def _scope(nodeid: str) -> str:
    """What one worker runs together: a file, a test of ``SPREAD_FILES``, or a whole folder of
    ``ONE_WORKER_FOLDERS``."""
    path = nodeid.split("::", 1)[0]
    if path in SPREAD_FILES:
        return nodeid
    return next((folder for folder in ONE_WORKER_FOLDERS if path.startswith(folder)), path)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """Under ``--dist loadfile``, workers take whole scopes (``_scope``): a module's fixtures are
    built once. Other ``--dist`` modes are left to pytest-xdist."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByScope(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _scope(nodeid)

    return ByScope(config, log)
