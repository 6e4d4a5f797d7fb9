"""The state folder that carries Stage A's flags over to `--real`."""

from __future__ import annotations

from pathlib import Path

from activation._models import Inputs, Target, Variant
from activation.state import last_flagged, merge_flagged, pair_key, record_flagged


def test_merge_keeps_flags_of_cases_the_run_did_not_touch() -> None:
    assert merge_flagged(["a", "b", "c"], ran=["b", "d"], flagged=["d"]) == ["a", "c", "d"]
    assert merge_flagged([], ran=["a"], flagged=["a"]) == ["a"]
    assert merge_flagged(["a"], ran=["a", "b"], flagged=[]) == []


def pair(baseline: str, candidate: str) -> str:
    """The state key of a pair of descriptions of one skill."""
    target = Target(Path("r"), Path("s/SKILL.md"), Path("r"), "p", "s")
    old, new = (Variant(d, d, "", d) for d in (baseline, candidate))
    return pair_key(Inputs(target, (), (), old, new))


def test_records_per_pair_and_ignores_itself_for_git(tmp_path: Path) -> None:
    one = pair("old", "new")
    other = pair("old", "newer")
    assert one != other
    assert last_flagged(tmp_path, one) is None
    record_flagged(tmp_path, one, ran=["a", "b", "c"], flagged=["a", "c"], model="m")
    record_flagged(tmp_path, one, ran=["c"], flagged=[], model="m")
    assert last_flagged(tmp_path, one) == ["a"]
    assert last_flagged(tmp_path, other) is None
    assert (tmp_path / ".activation" / ".gitignore").read_text().splitlines()[-1] == "*"
