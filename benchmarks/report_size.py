"""How large the JSON report is, compact (the default) and whole (`--full-record`).

    python benchmarks/report_size.py [--cases 375] [--cells 3]

A run of `--cases` cases in `--cells` cells, each cell its own seeded draw of a population,
with the default trials (3 per variant, escalation up to 30), through the real engine and a
fake backend that answers as Stage A does (what fired, "chose ..." as evidence, one request
of usage per trial). Two populations: the simulator's "typical" (half the cases right 97 %
of the time, a quarter 80 %, a quarter 60 %: a noisy suite, about half its cases flagged and
escalated) and a steady one (nine cases in ten right 99 % of the time, the rest 80 %). The
report is built as the run builds it and written both ways, and gzipped (`--json
report.json.gz`); the compact one is read back and must judge every case the same.
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import anyio
import orjson

from activation._models import FLAGGED, VARIANTS, RunSpec, Usage
from activation.report.codec import parse_saved, report_json
from activation.report.matrix import assembled
from activation.report.model import Report, build_report
from activation.trials.engine import execute_async
from activation.trials.fake import CaseKey, FakeBackend, at_rates
from activation.trials.simulate import Population, mix, simulated_inputs, typical


def steady(size: int) -> Population:
    return mix("steady", size, [(0.9, 0.99), (0.1, 0.8)])


def cell_report(population: Population, seed: int) -> Report:
    inputs = simulated_inputs(population)
    rates: dict[CaseKey, float] = {
        (case.id, variant): correct
        for case, pair in zip(inputs.cases, population.rates, strict=True)
        for variant, correct in zip(VARIANTS, pair, strict=True)
    }
    backend = FakeBackend(at_rates(rates, seed=seed), target=inputs.target.skill_id)
    outcome = anyio.run(execute_async, RunSpec(seed=seed), inputs, backend)
    return build_report(outcome, "bench")


def measure(population: Population, count: int) -> None:
    cells = tuple(cell_report(population, seed) for seed in range(count))
    matrix = assembled(cells, "bench", "fingerprint")
    full, compact = report_json(matrix, full=True), report_json(matrix)
    trials = sum(len(entry.trials) for cell in cells for entry in cell.cases)
    flagged = sum(entry.status in FLAGGED for cell in cells for entry in cell.cases)
    again = parse_saved(orjson.loads(compact), "compact.json")
    judged = [[(e.id, e.status, e.q_value) for e in cell.cases] for cell in again.cells]
    assert judged == [[(e.id, e.status, e.q_value) for e in cell.cases] for cell in cells]
    assert sum((cell.usage for cell in again.cells), Usage()) == matrix.usage
    print(f"{population.name}, {len(population.rates)} cases x {count} cells: {trials:,} "
          f"trials, {flagged} flagged cases")  # fmt: skip
    for name, data in (("full record (--full-record)", full), ("compact (default)", compact)):
        print(f"  {name:<28} {len(data) / 1e6:5.2f} MB ({len(data) / len(full):4.0%}), "
              f"gzipped {len(gzip.compress(data)) / 1e6:.2f} MB")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=375)
    parser.add_argument("--cells", type=int, default=3)
    args = parser.parse_args()
    for population in (typical(args.cases), steady(args.cases)):
        measure(population, args.cells)


if __name__ == "__main__":
    main()
