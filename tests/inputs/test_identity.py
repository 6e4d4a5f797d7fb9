"""A run's identity is computed once per cell, fast, and is the digest it always was: the
shards, resumes and saved reports of earlier versions keep matching it."""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import replace
from pathlib import Path

import anyio
import orjson
import pytest

from activation._models import Case, Inputs, RunSpec, Skill, Target, Variant
from activation.inputs import identity
from activation.report import model
from activation.report.matrix import build_matrix
from activation.trials.engine import execute_async
from activation.trials.fake import FakeBackend

TARGET = Target(Path("/r"), Path("skills/refunds/SKILL.md"), Path("/r"), None, "refunds")
CASES = (
    Case("c1", "refund order 7", True, "the refund flow", ("refund",), True, "c2"),
    Case("c2", "plot a chart", False, "", (), False, None, ("invoices",), ("refunds",)),
    Case("c3", "nothing", False, "no skill", expect=()),
)
MENU = (
    Skill("invoices", "Use for invoices.", "when billing", "Invoices", "project",
          agent_files=(("agents/openai.yaml", "x: 1"),)),
)  # fmt: skip
INPUTS = Inputs(TARGET, CASES, MENU, Variant("git:HEAD", "Use when issuing refunds.", "", "g"),
                Variant("SKILL.md", "Use for refunds.", "", "f"))  # fmt: skip
SPEC = RunSpec(model="mock", trials=3, max_trials=3)


def asdict_identity(spec: RunSpec, inputs: Inputs) -> str:
    """The identity as it was computed before: each case and skill through `asdict`."""
    material = {
        "skill": inputs.target.skill_id,
        "baseline": inputs.baseline.listed,
        "candidate": inputs.candidate.listed,
        "cases": [dataclasses.asdict(case) for case in inputs.cases],
        "menu": [dataclasses.asdict(skill) for skill in (*inputs.distractors, *inputs.catalog)],
        "settings": [spec.stage, spec.coding_agent, spec.model, spec.trials, spec.max_trials,
                     spec.alpha, spec.seed],
        "agent": None,
    }  # fmt: skip
    return hashlib.sha256(orjson.dumps(material)).hexdigest()[:32]


def test_the_identity_is_the_digest_it_always_was() -> None:
    assert identity.run_identity(SPEC, INPUTS) == asdict_identity(SPEC, INPUTS)


@pytest.mark.parametrize("cells", [1, 2])
def test_a_run_computes_each_cells_identity_once(
    cells: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report's fingerprint is its cells' identities combined, as `matrix_identity`
    computes it, with `run_identity` called once per cell (0.3 s each on 3,000 cases)."""
    calls: list[str] = []

    def counted(spec: RunSpec, inputs: Inputs) -> str:
        calls.append(spec.cell)
        return asdict_identity(spec, inputs)

    monkeypatch.setattr(model, "run_identity", counted)
    specs = [replace(SPEC, model=name) for name in ("mock", "scripted:m")[:cells]]
    outcomes = [
        anyio.run(execute_async, spec, INPUTS, FakeBackend(lambda _key: True, target="refunds"))
        for spec in specs
    ]
    matrix = build_matrix(outcomes, "0")
    assert calls == [spec.cell for spec in specs]
    assert matrix.fingerprint == identity.matrix_identity(specs, INPUTS)
