"""Every [host] and [both] line of the checklist is cited by a test, or said not to be emulated.

The IDs and sides come from docs/checklist-ids.txt (tools/gen_checklist_ids.py); a line counts as
cited when a test function's or test class's docstring, anywhere under tests/, writes its ID as
the checklist does (`AUD-22`). A range such as "AST-9 … AST-12" cites none of its lines, not
even its ends, and a module docstring cites nothing: it speaks for no single test. Lines vrosdev
cannot reproduce are listed with their reason under "Lines not emulated here" in
extension/vrosdev/README.md.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IDS_FILE = ROOT / "docs" / "checklist-ids.txt"
NOT_EMULATED_FILE = ROOT / "extension" / "vrosdev" / "README.md"
NOT_EMULATED_TITLE = "## Lines not emulated here"

# Lines whose tests are being written on another branch. The coordinator empties this after
# merging that branch; an ID here that is already cited fails the test, so none lingers.
PENDING: dict[str, str] = {}

ID = re.compile(r"(?<![A-Za-z0-9-])([A-Z]{1,4}-\d+)(?![0-9])")
RANGE = re.compile(ID.pattern + r"\s*(?:…|\.\.\.|-|–|to)\s*" + ID.pattern)


def checklist() -> dict[str, str]:
    sides: dict[str, str] = {}
    for line in IDS_FILE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            line_id, side, *_ = line.split()
            sides[line_id] = side
    return sides


def cited_ids() -> dict[str, list[str]]:
    """Each ID written in a test's docstring, with the tests that cite it."""
    cited: dict[str, list[str]] = {}
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            is_test = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and (
                node.name.startswith("test")
            )
            is_test_class = isinstance(node, ast.ClassDef) and node.name.startswith("Test")
            if is_test or is_test_class:
                assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                text = RANGE.sub(" ", ast.get_docstring(node) or "")
                for line_id in ID.findall(text):
                    where = f"{path.relative_to(ROOT)}::{node.name}"
                    cited.setdefault(line_id, []).append(where)
    return cited


def not_emulated() -> dict[str, str]:
    text = NOT_EMULATED_FILE.read_text(encoding="utf-8")
    assert NOT_EMULATED_TITLE in text, f"{NOT_EMULATED_FILE} has no {NOT_EMULATED_TITLE!r}"
    section = text.split(NOT_EMULATED_TITLE, 1)[1].split("\n## ", 1)[0]
    reasons: dict[str, str] = {}
    for item in re.findall(r"^- ([A-Z]+-\d+): (.+)$", section, flags=re.MULTILINE):
        reasons[item[0]] = item[1]
    return reasons


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
        for line_id, where in cited_ids().items()
        if line_id.split("-")[0] in prefixes and line_id not in sides
    }
    assert not unknown, f"cited IDs the checklist does not have: {unknown}"


def test_lines_not_emulated_are_host_lines_with_a_reason() -> None:
    sides = checklist()
    for line_id, reason in not_emulated().items():
        assert sides.get(line_id) in {"host", "both"}, f"{line_id} is not a host line"
        assert len(reason.split()) >= 4, f"{line_id} needs a reason"


def test_every_host_and_both_line_is_cited_or_not_emulated() -> None:
    sides = checklist()
    cited = cited_ids()
    skipped = not_emulated()
    uncited = [
        line_id
        for line_id, side in sides.items()
        if side in {"host", "both"} and line_id not in cited and line_id not in skipped
    ]
    missing = [line_id for line_id in uncited if line_id not in PENDING]
    waiting = sorted(line_id for line_id in uncited if line_id in PENDING)
    if waiting:
        print(f"waiting for other branches: {', '.join(waiting)}")
    assert not missing, (
        f"{len(missing)} [host]/[both] lines are cited by no test and not listed under "
        f"{NOT_EMULATED_TITLE!r} in {NOT_EMULATED_FILE.relative_to(ROOT)}: {', '.join(missing)}"
    )
    stale = sorted(set(PENDING) - set(uncited))
    assert not stale, f"PENDING lists lines now cited or not emulated; remove them: {stale}"
    both = sorted(set(cited) & set(skipped))
    assert not both, f"lines both cited by a test and listed as not emulated: {both}"
