"""What a routing run over a whole catalog costs: 40 skills, 1,000 cases, each expecting
one skill or none, as a user with a large catalog runs it.

    python benchmarks/catalog_routing.py [--skills 40] [--cases 1000] [--cache-min-tokens 1024]

The catalog is one plugin of `--skills` skills with descriptions of the usual length
(about 200 characters); the candidate edits one of them, as a pull request does. The cases
file names no skill and the run gets no `--skill-path`: every case says which skill it
expects, so the whole set is measured, with no distractors (the set has siblings). Nine
cases in ten expect a skill, spread evenly, one in ten none; the stand-in answers as a
model that routes most prompts home: one case in twenty of each skill goes to the next
skill, one in ten of the "none" cases to a skill, the same in every trial, so the routing
figures have something to show.

The run is the default one (3 trials, escalation up to 30, adaptive concurrency) through
the real SDK against the local stand-in, which bills prompt caching as the API does (a
`cache_control` prefix of at least `--cache-min-tokens` tokens is written by the first
request that sends it, read by those that come after it was answered); the listing is that
prefix, in four orders per variant shared by every case. Priced at the default model's
list prices (pricing.toml), then as the very same tokens all billed as plain input (no
caching). Prints the requests, tokens and costs, and the routing section's size.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson
from catalog_cost import Cost, skills

from activation import _config
from activation.commands.main import main
from activation.inputs.load import load_pricing
from tests.support.messages_api import Answer, FakeMessagesAPI, FakeRequest
from tests.support.skill_repo import SkillRepos, skill_text, write_cases

PLUGIN = "catalog"
EDITED = "skill-000"
"""The skill whose description the candidate changes (a pull request's edit)."""


def routing_cases(names: list[str], count: int) -> tuple[list[dict[str, object]], dict[str, str]]:
    """The cases, and the skill each prompt is answered with ("" for none)."""
    cases: list[dict[str, object]] = []
    answers: dict[str, str] = {}
    for index in range(count):
        none = index % 10 == 9
        home = None if none else names[index % len(names)]
        prompt = (
            f"Ticket {index}: please look at the {home} work item and tell me what to do next"
            if home
            else f"Ticket {index}: what is a good name for a cat that likes boxes?"
        )
        strays = (index // len(names)) % 20 == 19 if home else index % 100 == 99
        went = names[(names.index(home) + 1) % len(names)] if home and strays else home
        if none and strays:
            went = names[index % len(names)]
        answers[prompt] = f"{PLUGIN}:{went}" if went else ""
        cases.append({"id": f"c{index:04d}", "prompt": prompt,
                      "expect": f"{PLUGIN}:{home}" if home else None,
                      "why": "its skill by construction"})  # fmt: skip
    return cases, answers


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=40)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--cache-min-tokens", type=int, default=1024)
    args = parser.parse_args()
    prices = load_pricing().for_model(_config.MODEL)
    assert prices is not None
    catalog = skills(args.skills, "skill", 3)
    names = list(catalog)
    cases, answers = routing_cases(names, args.cases)

    def script(request: FakeRequest) -> Answer:
        went = answers[request.prompt]
        return Answer([went] if went else [])

    with (
        tempfile.TemporaryDirectory() as folder,
        FakeMessagesAPI(script, cache_min_tokens=args.cache_min_tokens) as api,
    ):
        root = Path(folder)
        repos = SkillRepos(root)
        first, *rest = names
        files = {f"plugins/{PLUGIN}/skills/{name}/SKILL.md": skill_text(catalog[name], name)
                 for name in rest}  # fmt: skip
        repo = repos(catalog[first], plugin_dir=f"plugins/{PLUGIN}", plugin_name=PLUGIN,
                     skill_name=first, files=files,
                     candidate=catalog[first] + " Also for release notes.")  # fmt: skip
        write_cases(repo.root / "cases.json", cases)
        os.environ.update(ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="sk-bench")
        os.chdir(repo.root)
        report = root / "report.json"
        started = time.monotonic()
        with redirect_stdout(StringIO()) as terminal:
            code = main(["--cases", "cases.json", "--no-cache", "--json", str(report),
                         "--show", "flagged"])  # fmt: skip
        wall = time.monotonic() - started
        repos.close()
        data = orjson.loads(report.read_bytes())
        if code not in (0, 1):
            raise SystemExit(f"benchmark run failed: exit {code}: {data.get('error')}")
    usage = data["usage"]
    cost = Cost(usage["requests"], usage["input_tokens"], usage["cache_write_tokens"],
                usage["cache_read_tokens"])  # fmt: skip
    routing = data["summary"]["candidate_routing"]
    astray = sum(c["trials"] for c in routing["cells"] if c["expected"] != c["went"])
    lines = terminal.getvalue().count("\n")
    print(f"{args.skills} skills, {args.cases} cases (expect one skill or none), default run "
          f"(3 trials, escalation up to 30), {_config.MODEL} list prices, cache minimum "
          f"{args.cache_min_tokens} tokens")  # fmt: skip
    print(f"  exit {code}, {wall:.1f} s, {usage['requests']:,} requests "
          f"({len(data['cases']) * 2 * data['trials']:,} in the first round)")  # fmt: skip
    print(f"  tokens: {usage['input_tokens']:,} uncached input, {usage['cache_write_tokens']:,} "
          f"cache written, {usage['cache_read_tokens']:,} cache read, "
          f"{usage['output_tokens']:,} output")  # fmt: skip
    per_trial = cost.input + cost.cache_write + cost.cache_read
    print(f"  per request: {per_trial / cost.trials:,.0f} input tokens, of which "
          f"{cost.cache_read / cost.trials:,.0f} read from the cache")  # fmt: skip
    output = usage["output_tokens"] * prices.output / 1e6
    cached, uncached = (
        price * cost.trials for price in (cost.cached(prices), cost.uncached(prices))
    )
    print(f"  cost: ${usage['cost_usd']:.4f} as reported; input ${cached:.4f} cached vs "
          f"${uncached:.4f} uncached, output ${output:.4f}")  # fmt: skip
    cells = len(routing["cells"])
    print(f"  routing: {len(routing['skills'])} skills, {cells} non-empty cells of "
          f"{(args.skills + 1) ** 2}, {astray:,} trials astray, {lines} lines")  # fmt: skip
    print(json.dumps({"requests": usage["requests"], "cost_usd": usage["cost_usd"]}))


if __name__ == "__main__":
    main_benchmark()
