"""What `activation suggest` gains on prompts nobody tuned for, and why it chooses on select.

    python benchmarks/suggest.py [--latency 0.0] [--seed 0]

A synthetic suite of 75 cases for `billing:refunds`, whose plugin has a sibling,
`billing:disputes`, with three distractors beside them. The original description misses an
intent: customers who want their money back without saying "refund". The suite is made so
that the obvious rewrite overfits: every train-split prompt of that intent happens to name a
"Zephyr kiosk", words no select or holdback prompt uses. The proposer (scripted, as one that
latched onto the train failures would be) offers, from the original:

- overfit: the original plus the two words those prompts share (zephyr, kiosk), never a
  phrase of theirs, so it passes the echo check: it fixes every train failure and none of
  the same intent phrased otherwise;
- greedy: names the intent in part, and claims the sibling's chargebacks and bank disputes;
- general: names the intent in the words its prompts use (overcharged, reimburse, money).

From general (round 2) it offers general plus the kiosk words, which only train would reward.

Shown, for each round-1 proposal: the select split as `suggest` judged it (cases right; the
current description had the original's count in the same runs; the verdict); the train and
holdback splits, each from an ordinary engine run of the proposal against the original
(`activation --candidate <its SKILL.md> --only <the split's ids>`): cases right, whether
suggest's rule would drop it on train (a REGRESSED case or a sibling's case lost), the
holdback's IMPROVED and REGRESSED cases and the sibling's cases right. Then what choosing on
train would pick (the same rule, on the train runs) and its holdback figures; the holdback
`suggest` scored (its JSON `holdback`); the calls and cost of each round (the current
description on train, the proposer's request, each proposal against the current one on
select), of the holdback and in total (JSON `rounds[i].usage`, `holdback.usage`, `usage`),
at the list prices of pricing.toml.

Stage A through the real SDK against the local stand-in (benchmarks/suggest_stand_in.py, in
its own process): a prompt goes to the menu entry sharing the most content words with it,
so every figure follows from the descriptions and the run is deterministic. Defaults
throughout: splits 40/30/30, seed 0, 3 trials, escalation to 30. `suggest` starts from an
empty response cache, as a first run does; the engine runs come after it and read that
cache (their calls are not among the figures). The calls are the same on every run; a cost
can move in the fourth decimal, as the stand-in bills a prompt-cache read only after the
write it reads was answered, which depends on timing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson
from suggest_stand_in import stand_in

from activation.commands.main import main
from activation.inputs.load import load_cases
from activation.inputs.splits import assign_splits
from tests.support.skill_repo import SkillRepos, write_cases, write_distractors

SKILL_ID = "billing:refunds"
SIBLING_ID = "billing:disputes"
PLUGIN = "plugins/billing"
SKILL_PATH = f"{PLUGIN}/skills/refunds/SKILL.md"
SIBLING_PATH = f"{PLUGIN}/skills/disputes/SKILL.md"

ORIGINAL = "Use when issuing refunds for orders."
OVERFIT = "Use when issuing refunds for orders, including purchases made at a Zephyr kiosk."
GREEDY = (
    "Use when issuing refunds for orders, when a customer was overcharged, or for any bank "
    "chargeback or dispute."
)
GENERAL = (
    "Use when issuing refunds for orders, or to reimburse a customer who was overcharged or "
    "wants their money returned."
)
GENERAL_KIOSK = GENERAL[:-1] + ", including at a Zephyr kiosk."
NAMES = {ORIGINAL: "original", OVERFIT: "overfit", GREEDY: "greedy", GENERAL: "general",
         GENERAL_KIOSK: "general+kiosk"}  # fmt: skip
PROPOSALS = {ORIGINAL: [OVERFIT, GREEDY, GENERAL], GENERAL: [GENERAL_KIOSK]}

SIBLING = "Respond to chargebacks and bank disputes with evidence before the deadline."
DISTRACTORS = {
    "invoices": "Use when generating or emailing invoices and receipts.",
    "tax-rules": "Use when computing sales tax or VAT rates.",
    "shipping": "Use when booking shipments and printing shipping labels.",
}
BODY = "# Refunds\n\nFind the order and refund it, in full or in part.\n"

GROUPS: dict[str, tuple[str | None, int]] = {
    "refunds": (SKILL_ID, 15),
    "money-back": (SKILL_ID, 24),
    "disputes": (SIBLING_ID, 12),
    "invoices": ("invoices", 6),
    "tax": ("tax-rules", 6),
    "shipping": ("shipping", 6),
    "none": (None, 6),
}
"""Each group: the skill its prompts belong to (None: no skill), and how many cases."""
TEMPLATES = {
    "refunds": ["refund order {i} in full", "issue a partial refund on order {i}"],
    "money-back": [
        "I was overcharged for my subscription in March, case {i}",
        "please reimburse the duplicate payment {i}",
        "they took my money twice, I want it returned {i}",
    ],
    "disputes": [
        "the bank opened a chargeback on order {i}",
        "respond to dispute {i} before the deadline",
        "send evidence for the customer's chargeback {i}",
    ],
    "invoices": ["email invoice {i} to Acme", "resend the receipt for invoice {i}"],
    "tax": ["compute the VAT rate for Germany, entry {i}", "which sales tax is due in Ohio {i}"],
    "shipping": ["book a shipment for parcel {i}", "print the shipping label for parcel {i}"],
    "none": ["rename the column of table {i}", "speed up the slow database index {i}"],
}
TRAIN_TEMPLATES = {
    "money-back": [
        "the Zephyr kiosk charged my card twice, receipt {i}",
        "a Zephyr kiosk sold me a faulty ticket {i}",
        "the Zephyr kiosk kept my money without a ticket {i}",
    ]
}
"""The intent's prompts in the train split: all name the kiosk, which no other split does."""


def suite(seed: int) -> list[dict[str, Any]]:
    """The cases, each group's prompts dealt in turn within each split (so each phrasing is in
    every split), the train split's money-back prompts phrased their own way."""
    cases: list[dict[str, Any]] = [
        {"id": f"{group}-{n:02d}", "prompt": f"{group} {n}", "expect": owner,
         "why": f"a {group} prompt", "tags": [group]}
        for group, (owner, count) in GROUPS.items()
        for n in range(count)
    ]  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        loaded = load_cases(write_cases(Path(folder) / "cases.json", cases)).cases
    splits = assign_splits(loaded, SKILL_ID, seed)
    dealt: dict[tuple[str, str], int] = {}
    for entry in cases:
        group, split = entry["tags"][0], splits.of(entry["id"])
        templates = (TRAIN_TEMPLATES if split == "train" else TEMPLATES).get(group)
        templates = templates or TEMPLATES[group]
        turn = dealt[group, split] = dealt.get((group, split), -1) + 1
        entry["prompt"] = templates[turn % len(templates)].format(i=entry["id"].split("-")[-1])
    return cases


def skill_md(description: str, name: str = "refunds", body: str = BODY) -> str:
    return f"---\nname: {name}\ndescription: {orjson.dumps(description).decode()}\n---\n{body}"


@dataclass(frozen=True)
class Workspace:
    cases: Path
    distractors: Path
    out: Path


@contextmanager
def workspace(root: Path, seed: int, url: str) -> Iterator[Workspace]:
    """The plugin in a git repo (the original committed and in the working tree), the cases,
    the distractors, a fresh response cache; the process works in the repo, asking `url`."""
    repos = SkillRepos(root)
    made = repos(
        root=root / "repo",
        plugin_dir=PLUGIN,
        text=skill_md(ORIGINAL),
        files={SIBLING_PATH: skill_md(SIBLING, "disputes", "# Disputes\n\nAnswer them.\n")},
    )
    found = Workspace(
        write_cases(root / "cases.json", suite(seed)),
        write_distractors(root / "distractors", DISTRACTORS),
        root / "out",
    )
    found.out.mkdir()
    os.environ.update(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="sk-bench",
                      ACTIVATION_CACHE_DIR=str(root / "cache"))  # fmt: skip
    os.environ.pop("GITHUB_STEP_SUMMARY", None)
    os.chdir(made.root)
    try:
        yield found
    finally:
        repos.close()


def activation(argv: Sequence[str], json_path: Path) -> dict[str, Any]:
    """`activation <argv> --json <json_path>` in this process, its terminal output kept
    back (shown when it fails)."""
    errors = StringIO()
    with redirect_stdout(StringIO()), redirect_stderr(errors):
        code = main([*argv, "--json", str(json_path)])
    if code not in (0, 1):
        raise SystemExit(f"exit {code} from activation {' '.join(argv)}\n{errors.getvalue()}")
    found: dict[str, Any] = orjson.loads(json_path.read_bytes())
    return found


@dataclass(frozen=True)
class Scored:
    """A description against the original on one split, by the engine."""

    right: int
    original_right: int
    improved: int
    regressed: int
    sibling_lost: int
    """Cases of the sibling right with the original and wrong with this description."""
    sibling_right: int
    sibling_original_right: int
    sibling_cases: int

    @property
    def out(self) -> bool:
        """Out by suggest's rule: a regression, or a sibling's case lost."""
        return bool(self.regressed or self.sibling_lost)


def scored(report: dict[str, Any]) -> Scored:
    cases = report["cases"]
    sibling = [c for c in cases if c["expect"] == [SIBLING_ID]]
    statuses = [c["status"] for c in cases]
    return Scored(
        right=sum(c["candidate"]["right"] for c in cases),
        original_right=sum(c["baseline"]["right"] for c in cases),
        improved=statuses.count("IMPROVED"),
        regressed=statuses.count("REGRESSED"),
        sibling_lost=sum(c["baseline"]["right"] and not c["candidate"]["right"] for c in sibling),
        sibling_right=sum(c["candidate"]["right"] for c in sibling),
        sibling_original_right=sum(c["baseline"]["right"] for c in sibling),
        sibling_cases=len(sibling),
    )


def engine(space: Workspace, description: str, split: str, ids: Sequence[str]) -> Scored:
    """`activation --candidate <SKILL.md with description> --only <ids>`, the original
    (git:HEAD) as baseline."""
    name = NAMES[description]
    candidate = space.out / name / "SKILL.md"
    candidate.parent.mkdir(exist_ok=True)
    candidate.write_text(skill_md(description))
    argv = ["--cases", str(space.cases), "--distractors", str(space.distractors),
            "--skill-path", SKILL_PATH, "--candidate", str(candidate),
            "--only", ",".join(ids)]  # fmt: skip
    return scored(activation(argv, space.out / f"{name}-{split}.json"))


def cost(usage: dict[str, Any]) -> str:
    return f"{usage['requests']:4d} calls  ${usage['cost_usd']:.4f}"


def train_pick(train: dict[str, Scored]) -> str | None:
    """What choosing on train would pick, by suggest's rule: of the descriptions that
    regress nothing and lose no sibling's case, the one with the most cases right, if it
    beats the original significantly (a case IMPROVED, more cases right)."""
    standing = {name: s for name, s in train.items() if not s.out}
    best = max(standing, key=lambda name: standing[name].right, default=None)
    if best is None or not standing[best].improved:
        return None
    return best if standing[best].right > standing[best].original_right else None


GROUPS_SHOWN = (("", 1), ("select split (suggest)", 2), ("train", 2), ("holdback", 4))
HEADER = ("description", "right", "verdict", "right", "out", "right", "IMPROVED", "REGRESSED",
          "sibling right")  # fmt: skip
LEFT = {0, 2, 4}


def table(rows: Sequence[Sequence[str]]) -> list[str]:
    """The rows under the two header lines, each column as wide as its widest cell."""
    widths = [max(len(row[i]) for row in (HEADER, *rows)) for i in range(len(HEADER))]
    spans: list[str] = []
    start = 0
    for title, count in GROUPS_SHOWN:
        spans.append(f"{title:{sum(widths[start : start + count]) + 2 * (count - 1)}}")
        start += count
    lines = ["  ".join(spans).rstrip()]
    for row in (HEADER, *rows):
        cells = (f"{c:{'<' if i in LEFT else '>'}{widths[i]}}" for i, c in enumerate(row))
        lines.append("  ".join(cells).rstrip())
    return lines


def rows(
    found: dict[str, Any], train: dict[str, Scored], held: dict[str, Scored]
) -> list[list[str]]:
    """The original, then each round-1 proposal: on select as suggest judged it (the cell
    named in a verdict dropped: there is one), on train and on the holdback by the engine."""
    first = found["rounds"][0]
    cell = f" ({found['cells'][0]})"
    some_train, some_held = next(iter(train.values())), next(iter(held.values()))
    sibling = f"{some_held.sibling_original_right}/{some_held.sibling_cases}"
    found_rows = [
        ["original", str(max(p["current_correct"] for p in first["proposals"])), "",
         str(some_train.original_right), "", str(some_held.original_right), "", "", sibling]
    ]  # fmt: skip
    for entry in first["proposals"]:
        name = NAMES[entry["text"]]
        on_train, on_held = train[name], held[name]
        found_rows.append([
            name, str(entry["correct"]), entry["verdict"].replace(cell, ""), str(on_train.right),
            "yes" if on_train.out else "no", str(on_held.right), str(on_held.improved),
            str(on_held.regressed), f"{on_held.sibling_right}/{on_held.sibling_cases}",
        ])  # fmt: skip
    return found_rows


def show(found: dict[str, Any], train: dict[str, Scored], held: dict[str, Scored]) -> None:
    cell = f" ({found['cells'][0]})"
    print("\n".join(table(rows(found, train, held))))
    for record in found["rounds"][1:]:
        for entry in record["proposals"]:
            print(
                f"round {record['number']}, from {NAMES.get(record['current'], '?')}: "
                f"{NAMES.get(entry['text'], '?')}, {entry['correct']} right on select (current "
                f"{entry['current_correct']}): {entry['verdict'].replace(cell, '')}"
            )
    picked = train_pick(train)
    print()
    print(f"suggest chose (on select): {NAMES.get(found['chosen'], '?')}; stopped: "
          f"{found['stopped']}")  # fmt: skip
    print(f"choosing on train would pick: {picked or 'nothing'}")
    hold = found["holdback"]
    if hold is None:
        print("holdback (suggest): not run, nothing was chosen")
    else:
        cases = hold["cases"]
        statuses = [c["status"] for c in cases]
        sibling = [c for c in cases if c["expect"] == [SIBLING_ID]]
        print(
            f"holdback (suggest's JSON): {sum(c['baseline']['right'] for c in cases)} -> "
            f"{sum(c['candidate']['right'] for c in cases)} of {len(cases)} right, IMPROVED "
            f"{statuses.count('IMPROVED')}, REGRESSED {statuses.count('REGRESSED')}; "
            f"{SIBLING_ID}'s cases right {sum(c['candidate']['right'] for c in sibling)}"
            f"/{len(sibling)}"
        )
    if picked is not None:
        on_held = held[picked]
        print(
            f"holdback of the train pick ({picked}): {on_held.original_right} -> "
            f"{on_held.right} of {len(found['splits']['holdback'])} right, IMPROVED "
            f"{on_held.improved}, REGRESSED {on_held.regressed}"
        )
    print()
    for record in found["rounds"]:
        print(f"round {record['number']}:  {cost(record['usage'])}")
    if hold is not None:
        print(f"holdback: {cost(hold['usage'])}")
    print(f"total:    {cost(found['usage'])}")


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with (
        stand_in(PROPOSALS, args.latency) as url,
        tempfile.TemporaryDirectory() as folder,
        workspace(Path(folder), args.seed, url) as space,
    ):
        argv = ["suggest", "--cases", str(space.cases), "--distractors", str(space.distractors),
                "--skill-path", SKILL_PATH, "--seed", str(args.seed)]  # fmt: skip
        started = time.perf_counter()
        found = activation(argv, space.out / "suggestion.json")
        wall = time.perf_counter() - started
        splits = found["splits"]
        proposed = [entry["text"] for entry in found["rounds"][0]["proposals"]]
        train = {NAMES[t]: engine(space, t, "train", splits["train"]) for t in proposed}
        held = {NAMES[t]: engine(space, t, "holdback", splits["holdback"]) for t in proposed}
    sizes = "/".join(str(len(splits[name])) for name in ("train", "select", "holdback"))
    total = sum(len(splits[name]) for name in ("train", "select", "holdback"))
    print(f"{total} cases (train/select/holdback {sizes}), seed {args.seed}, 3 trials, "
          f"escalation to 30; suggest took {wall:.1f} s (the first imports included)")  # fmt: skip
    print("round 1's train failures, as the proposer was told them:")
    for failure in found["rounds"][0]["failures"]:
        print(f"  {failure}")
    print()
    show(found, train, held)


if __name__ == "__main__":
    main_benchmark()
