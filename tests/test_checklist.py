"""Every [host] and [both] line of the checklist is cited by a test of the host, or said not to be
emulated, and a citation means a check.

The IDs and sides come from docs/checklist-ids.txt (tools/gen_checklist_ids.py). What counts as
citing a line is decided from the source alone, with `ast`, without running pytest. An ID
written in a docstring counts only when all of these hold:

- the file is a module pytest collects: its name is ``test_*.py``;
- the docstring is a test function's: a module-level ``test*`` function or a ``test*`` method
  of a module-level ``Test*`` class (a module's, a class's or a nested function's docstring
  speaks for no single test);
- the test is not skipped unconditionally: no ``pytest.mark.skip``, no ``skipif`` whose
  condition is the constant true, on the function, its class or the module's ``pytestmark``;
  no ``pytest.skip(...)`` as a statement of the function's own body or of the module (one
  inside an ``if`` is a condition, and counts);
- its own body asserts: an ``assert`` statement, ``pytest.raises``, or a call of a helper in
  ``ASSERTING_HELPERS`` (each fails the test when what it checks is not so).

The one range syntax read is ``AST-9 … AST-12`` (two full IDs around a spaced "…"): it cites
none of its lines, not even its ends, so a test lists each line it checks. Any other shorthand
(``PAN-16..18``, ``PAN-16-18``, ``PAN-16 to PAN-18``) fails the check, so that none passes for a
citation of its first ID.

For [host] and [both] lines only tests of the host count: those under tests/vrosdev, which drive
vrosdev through a raw socket, its SDK-free test clients, its command line, or its engines.
Lines vrosdev cannot reproduce are listed with their reason under "Lines not emulated here" in
extension/vrosdev/README.md; a line vrosdev reproduces in part is cited for that part and listed
for the rest under "Lines emulated in part".
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IDS_FILE = ROOT / "docs" / "checklist-ids.txt"
HOST_TESTS = ROOT / "tests" / "vrosdev"
NOT_EMULATED_FILE = ROOT / "extension" / "vrosdev" / "README.md"
NOT_EMULATED_TITLE = "## Lines not emulated here"
PARTLY_TITLE = "## Lines emulated in part"

# Lines whose tests are being written on another branch. The coordinator empties this after
# merging that branch; an ID here that is already cited fails the test, so none lingers.
PENDING: dict[str, str] = {}

ID = re.compile(r"(?<![A-Za-z0-9-])([A-Z]{1,4}-\d+)(?![0-9])")
RANGE = re.compile(ID.pattern + r" … " + ID.pattern)
SHORTHAND = re.compile(
    r"(?<![A-Za-z0-9-])[A-Z]{1,4}-\d+(?:\s*(?:\.\.\.?|–|—|-|/)\s*|\s+to\s+)(?:[A-Z]{1,4}-)?\d+"
    r"(?![0-9])"
)

# Helpers that fail the test when what they check does not hold (name as called: a function's
# name or a method's attribute name). Each one asserts on what it returns or waits for.
ASSERTING_HELPERS = frozenset(
    {
        "event",  # tests/vrosdev/rawhost.py RawPeer.event: the next frame is an event, no id
        "closed",  # RawPeer.closed: fails unless the host closes the connection
    }
)


def is_collected_module(path: Path) -> bool:
    return path.name.startswith("test_") and path.suffix == ".py"


def _is_pytest_attr(node: ast.expr, *names: str) -> bool:
    """``pytest.<names...>`` (``pytest.mark.skip``), called or not."""
    if isinstance(node, ast.Call):
        node = node.func
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return isinstance(node, ast.Name) and node.id == "pytest" and tuple(reversed(parts)) == names


def _skips(marker: ast.expr) -> bool:
    """The marker skips whatever it marks, whatever the run."""
    if _is_pytest_attr(marker, "mark", "skip"):
        return True
    if isinstance(marker, ast.Call) and _is_pytest_attr(marker, "mark", "skipif"):
        condition = marker.args[0] if marker.args else None
        return isinstance(condition, ast.Constant) and bool(condition.value)
    return False


def _module_skips(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            value = node.value
            marks = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
            if any(_skips(m) for m in marks):
                return True
        if isinstance(node, ast.Expr) and _is_pytest_attr(node.value, "skip"):
            return True  # pytest.skip(..., allow_module_level=True) at the top
    return False


def _own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of a body, not entering nested functions, lambdas or classes."""
    nested = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
    stack: list[ast.AST] = [node for node in body if not isinstance(node, nested)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, nested))


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def asserts(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for node in _own_nodes(fn.body):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call):
            if _is_pytest_attr(node, "raises"):
                return True
            if _called_name(node) in ASSERTING_HELPERS:
                return True
    return False


def skipped(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    if any(_skips(d) for d in fn.decorator_list):
        return True
    return any(isinstance(s, ast.Expr) and _is_pytest_attr(s.value, "skip") for s in fn.body)


def _tests(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The tests pytest collects from the module, minus those skipped unconditionally."""
    if _module_skips(tree):
        return
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "test"
        ):
            if not skipped(node):
                yield node
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            if any(_skips(d) for d in node.decorator_list):
                continue
            for item in node.body:
                is_test = isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                if is_test and item.name.startswith("test") and not skipped(item):
                    yield item


def ids_in(docstring: str) -> list[str]:
    """The IDs a docstring cites: a range names none of its lines (nor does a shorthand one,
    which fails the check besides)."""
    return ID.findall(SHORTHAND.sub(" ", RANGE.sub(" ", docstring)))


def cited_ids(folder: Path, root: Path) -> dict[str, list[str]]:
    """Each ID cited under ``folder`` by a test that counts, with those tests."""
    cited: dict[str, list[str]] = {}
    for path in sorted(folder.rglob("test_*.py")):
        if not is_collected_module(path):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for test in _tests(tree):
            if not asserts(test):
                continue
            for line_id in ids_in(ast.get_docstring(test) or ""):
                where = f"{path.relative_to(root)}::{test.name}"
                cited.setdefault(line_id, []).append(where)
    return cited


def shorthand_ranges(folder: Path, root: Path) -> dict[str, list[str]]:
    """Ranges written in another syntax than ``A-1 … A-4``, in any docstring under ``folder``."""
    found: dict[str, list[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                text = RANGE.sub(" ", ast.get_docstring(node) or "")
                for hit in SHORTHAND.findall(text):
                    found.setdefault(str(path.relative_to(root)), []).append(hit)
    return found


def checklist() -> dict[str, str]:
    sides: dict[str, str] = {}
    for line in IDS_FILE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            line_id, side, *_ = line.split()
            sides[line_id] = side
    return sides


def listed(title: str, text: str | None = None) -> dict[str, str]:
    """The ``- ID: reason`` items of one section of extension/vrosdev/README.md."""
    text = NOT_EMULATED_FILE.read_text(encoding="utf-8") if text is None else text
    assert title in text, f"{NOT_EMULATED_FILE} has no {title!r}"
    section = text.split(title, 1)[1].split("\n## ", 1)[0]
    reasons: dict[str, str] = {}
    for line_id, reason in re.findall(r"^- ([A-Z]+-\d+): (.+)$", section, flags=re.MULTILINE):
        reasons[line_id] = reason
    return reasons


def problems(
    sides: dict[str, str],
    cited: dict[str, list[str]],
    not_emulated: dict[str, str],
    partly: dict[str, str],
    shorthand: dict[str, list[str]],
) -> list[str]:
    """What keeps the host's lines from being proven: empty when every line is."""
    found: list[str] = []
    host_lines = {line_id for line_id, side in sides.items() if side in {"host", "both"}}
    uncited = sorted(host_lines - set(cited) - set(not_emulated) - set(PENDING))
    if uncited:
        found.append(f"cited by no test of the host and not listed: {', '.join(uncited)}")
    both = sorted(set(cited) & set(not_emulated))
    if both:
        found.append(f"cited by a test and listed as not emulated: {', '.join(both)}")
    part_uncited = sorted(set(partly) - set(cited))
    if part_uncited:
        found.append(f"emulated in part, but no test cites that part: {', '.join(part_uncited)}")
    for line_id, reason in {**not_emulated, **partly}.items():
        if line_id not in host_lines:
            found.append(f"{line_id} is listed but is not a host line")
        if len(reason.split()) < 4:
            found.append(f"{line_id} needs a reason")
    for where, hits in shorthand.items():
        found.append(f"{where}: a range in another syntax than 'A-1 … A-4': {hits}")
    return found


def test_the_ids_file_holds_the_whole_checklist() -> None:
    sides = checklist()
    assert len(sides) == 285
    assert set(sides.values()) == {"host", "ext", "both"}


def test_cited_ids_exist_in_the_checklist() -> None:
    """A typo'd or invented ID in a docstring would look like coverage that is not there."""
    sides = checklist()
    prefixes = {line_id.split("-")[0] for line_id in sides}
    unknown = {
        line_id: where
        for line_id, where in cited_ids(ROOT / "tests", ROOT).items()
        if line_id.split("-")[0] in prefixes and line_id not in sides
    }
    assert not unknown, f"cited IDs the checklist does not have: {unknown}"


def test_every_host_and_both_line_is_cited_by_a_host_test_or_listed() -> None:
    found = problems(
        checklist(),
        cited_ids(HOST_TESTS, ROOT),
        listed(NOT_EMULATED_TITLE),
        listed(PARTLY_TITLE),
        shorthand_ranges(HOST_TESTS, ROOT),
    )
    waiting = sorted(PENDING)
    if waiting:
        print(f"waiting for other branches: {', '.join(waiting)}")
    assert not found, "\n".join(found)
    stale = sorted(
        set(PENDING) & (set(cited_ids(HOST_TESTS, ROOT)) | set(listed(NOT_EMULATED_TITLE)))
    )
    assert not stale, f"PENDING lists lines now cited or not emulated; remove them: {stale}"


PLANTED_TEST_MODULE = '''"""KV-1: a module docstring speaks for no single test."""
import pytest


def test_asserts_nothing():
    """KV-2: the call below is made, nothing about it is checked."""
    print("kv get")


@pytest.mark.skip(reason="later")
def test_marked_skip():
    """KV-3"""
    assert True


@pytest.mark.skipif(True, reason="never runs")
def test_skipif_true():
    """KV-4"""
    assert True


def test_skips_itself():
    """KV-5"""
    pytest.skip("not yet")
    assert True


def outer():
    def test_nested():
        """KV-6"""
        assert True


class TestGroup:
    """KV-7: a class docstring speaks for no single test."""

    def test_plain(self):
        assert True


def test_shorthand_range():
    """KV-8..10: a shorthand range."""
    assert True


def test_unknown_helper():
    """KV-11"""
    check_everything()


def test_assert_only_in_a_nested_function():
    """KV-12"""

    def inner():
        assert True


def test_a_real_check():
    """KV-13, KV-14 … KV-16: a check, and a range that cites none of its lines."""
    assert 1 + 1 == 2


@pytest.mark.skipif(__import__("sys").platform == "win32", reason="Linux only")
def test_a_conditional_skip():
    """KV-17"""
    with pytest.raises(ZeroDivisionError):
        1 / 0
'''

PLANTED_SKIPPED_MODULE = '''import pytest

pytestmark = [pytest.mark.anyio, pytest.mark.skip(reason="the whole module")]


def test_in_a_skipped_module():
    """KV-18"""
    assert True
'''

PLANTED_HELPER_MODULE = '''def test_in_a_helper_module():
    """KV-19: pytest never collects this file (its name is not test_*.py)."""
    assert True
'''


def test_the_check_fails_on_each_kind_of_weak_citation(tmp_path: Path) -> None:
    """Planted citations that check nothing: the check counts none of them and fails."""
    tests = tmp_path / "tests" / "vrosdev"
    tests.mkdir(parents=True)
    (tests / "test_planted.py").write_text(PLANTED_TEST_MODULE, encoding="utf-8")
    (tests / "test_skipped_module.py").write_text(PLANTED_SKIPPED_MODULE, encoding="utf-8")
    (tests / "helpers.py").write_text(PLANTED_HELPER_MODULE, encoding="utf-8")
    cited = cited_ids(tests, tmp_path)
    assert sorted(cited) == ["KV-13", "KV-17"]
    shorthand = shorthand_ranges(tests, tmp_path)
    assert shorthand == {"tests/vrosdev/test_planted.py": ["KV-8..10"]}
    sides = {f"KV-{n}": "host" for n in range(1, 20)}
    found = problems(sides, cited, {}, {}, shorthand)
    weak = {f"KV-{n}" for n in range(1, 20)} - {"KV-13", "KV-17"}
    assert found[0] == "cited by no test of the host and not listed: " + ", ".join(sorted(weak))
    assert "a range in another syntax" in found[-1]
    assert problems({"KV-13": "host", "KV-17": "both"}, cited, {}, {}, {}) == []


def test_a_listed_line_needs_a_reason_and_cannot_also_be_cited() -> None:
    """The lists' own rules: a reason of a few words, a host line, not both cited and listed."""
    cited = {"KV-1": ["t"]}
    found = problems(
        {"KV-1": "host", "KV-2": "ext"}, cited, {"KV-1": "cannot", "KV-2": "a b c d"}, {}, {}
    )
    assert found == [
        "cited by a test and listed as not emulated: KV-1",
        "KV-1 needs a reason",
        "KV-2 is listed but is not a host line",
    ]
    assert problems({"KV-3": "host"}, {}, {}, {"KV-3": "the rest is not on the wire"}, {}) == [
        "cited by no test of the host and not listed: KV-3",
        "emulated in part, but no test cites that part: KV-3",
    ]
