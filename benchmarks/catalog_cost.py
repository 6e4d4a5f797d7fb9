"""Stage A's input cost per trial with a 100-skill catalog, against a 10-skill menu.

    python benchmarks/catalog_cost.py [--cases 40] [--trials 3] [--cache-min-tokens 1024]

A 40-case run, 3 trials per variant (escalation off, so both menus make the same calls),
through the real SDK against the local stand-in, which bills prompt caching as the API
does: a `cache_control` prefix of at least `--cache-min-tokens` tokens is written by the
first request that sends it and read by those that come after it was answered (1,024 is the
minimum of the Sonnet-class models, 4,096 of some larger ones). The 10-skill menu is the
measured skill and 9 distractors (the stand-in's 3 and 6 more); the 100-skill one adds 90
installed skills with descriptions of the usual length through `--catalog`. Both listings
carry the agent's own built-in skills too, as the real one does.

Input cost is priced at the list prices of the default model (pricing.toml): uncached input,
cache writes and cache reads each at their own price. "Uncached" prices the very same
tokens as plain input: what the run would cost with no prompt caching, as when every trial
shuffled its own menu order. The target: the catalog run's cached cost per trial at most
1.3 times the 10-skill menu's uncached cost.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from contextlib import redirect_stdout
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson
from refund_stand_in import refund_suite, stand_in

from activation import _config
from activation._models import Prices
from activation.commands.main import main
from activation.inputs.load import load_pricing
from tests.support.skill_repo import DISTRACTORS, write_distractors

VERBS = ["reviewing", "migrating", "profiling", "deploying", "documenting", "auditing",
         "designing", "testing", "tuning", "debugging"]  # fmt: skip
THINGS = ["Terraform modules", "GraphQL schemas", "Kafka topics", "iOS release builds",
          "Postgres indexes", "feature flags", "Helm charts", "OpenAPI specs",
          "Snowflake pipelines", "accessibility audits", "Rust crates", "webhooks"]  # fmt: skip


def description(draw: random.Random, index: int) -> str:
    """A made-up skill description of the usual length (about 200 characters)."""
    one, two = draw.sample(THINGS, 2)
    return (
        f"Use when {draw.choice(VERBS)} {one} or {draw.choice(VERBS)} {two} in project "
        f"{index}: conventions, checklists and the commands to run, plus the pitfalls that "
        "reviews keep finding."
    )


def skills(count: int, prefix: str, seed: int) -> dict[str, str]:
    draw = random.Random(seed)
    return {f"{prefix}-{i:03d}": description(draw, i) for i in range(count)}


def write_catalog(folder: Path, entries: dict[str, str]) -> Path:
    for name, text in entries.items():
        (folder / name).mkdir(parents=True)
        (folder / name / "SKILL.md").write_text(
            f"---\ndescription: {json.dumps(text)}\n---\nBody.\n"
        )
    return folder


@dataclass(frozen=True)
class Cost:
    trials: int
    input: int
    cache_write: int
    cache_read: int

    def cached(self, prices: Prices) -> float:
        """Input cost per trial in US dollars, with prompt caching as billed."""
        spent = (
            self.input * prices.input
            + self.cache_write * prices.cache_write
            + self.cache_read * prices.cache_read
        )
        return spent / 1e6 / self.trials

    def uncached(self, prices: Prices) -> float:
        """The same tokens, every one as plain input."""
        return (self.input + self.cache_write + self.cache_read) * prices.input / 1e6 / self.trials


def measure(root: Path, cases: int, trials: int, catalog: int, url: str) -> Cost:
    with refund_suite(root, cases, url) as suite:
        nine = {**DISTRACTORS, **skills(9 - len(DISTRACTORS), "distractor", 1)}
        distractors = write_distractors(root / "nine", nine)
        argv = [
            "--cases", str(suite.cases), "--distractors", str(distractors),
            "--trials", str(trials), "--max-trials", str(trials), "--no-cache",
            "--json", str(root / "report.json"),
        ]  # fmt: skip
        if catalog:
            argv += ["--catalog", str(write_catalog(root / "catalog", skills(catalog, "skill", 2)))]
        with redirect_stdout(StringIO()):
            code = main(argv)
        usage = orjson.loads((root / "report.json").read_bytes())["usage"]
    if code not in (0, 1) or usage["requests"] != cases * 2 * trials:
        raise SystemExit(f"benchmark run failed: exit {code}, {usage['requests']} requests")
    return Cost(usage["requests"], usage["input_tokens"], usage["cache_write_tokens"],
                usage["cache_read_tokens"])  # fmt: skip


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=40)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--cache-min-tokens", type=int, default=1024)
    args = parser.parse_args()
    prices = load_pricing().for_model(_config.MODEL)
    assert prices is not None
    costs = {}
    with stand_in(0.0, cache_min_tokens=args.cache_min_tokens) as (url, _served):
        for label, catalog in (("10-skill menu", 0), ("100-skill catalog", 90)):
            with tempfile.TemporaryDirectory() as folder:
                costs[label] = measure(Path(folder), args.cases, args.trials, catalog, url)
    print(f"{args.cases} cases x 2 variants x {args.trials} trials, {_config.MODEL} list prices, "
          f"cache minimum {args.cache_min_tokens} tokens")  # fmt: skip
    for label, cost in costs.items():
        print(
            f"  {label}: {cost.input / cost.trials:,.0f} uncached + "
            f"{cost.cache_write / cost.trials:,.0f} written + {cost.cache_read / cost.trials:,.0f}"
            f" read tokens a trial: ${cost.cached(prices):.6f} cached, "
            f"${cost.uncached(prices):.6f} uncached"
        )
    small, big = costs["10-skill menu"], costs["100-skill catalog"]
    ratio = big.cached(prices) / small.uncached(prices)
    both = big.cached(prices) / small.cached(prices)
    verdict = "met" if ratio <= 1.3 else "NOT met"
    print(f"catalog cached / menu uncached: {ratio:.2f}x (target <= 1.3x: {verdict})")
    print(f"catalog cached / menu cached:   {both:.2f}x")


if __name__ == "__main__":
    main_benchmark()
