"""Argument parsing shared by every subcommand: one clear line and exit 2 for bad flags."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import NoReturn

from activation.classifier import DEFAULT_MODEL
from activation.run import Settings


class OneLineParser(argparse.ArgumentParser):
    """Bad flags get one clear line and exit 2, not a usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {number}")
    return number


def probability(value: str) -> float:
    number = float(value)
    if not 0 < number < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {number}")
    return number


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of every command that runs the matrix (the main one and `calibrate`)."""
    parser.add_argument("--repo", type=Path, help="target repo (default: git root of the cwd)")
    parser.add_argument(
        "--skill-path",
        help="SKILL.md relative to the repo (default: plugins/auth0/skills/auth0/SKILL.md, "
        "or the only SKILL.md under plugins/)",
    )
    parser.add_argument("--cases", type=Path, help="cases file (default: the bundled suite)")
    parser.add_argument("--distractors", type=Path, help="distractor skills folder")
    parser.add_argument("--trials", type=positive_int, default=3, help="trials per case (3)")
    parser.add_argument("--model", help=f"model id (Stage A default {DEFAULT_MODEL})")
    parser.add_argument("--seed", type=int, default=0, help="menu shuffle seed (0)")
    parser.add_argument("--alpha", type=probability, default=0.05, help="significance (0.05)")
    parser.add_argument("--concurrency", type=positive_int, help="parallel calls (A: 8, B: 4)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the JSON report")
    parser.add_argument("--real", action="store_true", help="Stage B: the real Claude Code CLI")
    parser.add_argument("--claude", default="claude", help="Claude Code executable (Stage B)")
    parser.add_argument("--max-turns", type=positive_int, default=8, help="Stage B (8)")
    parser.add_argument(
        "--timeout", type=float, default=300.0, help="Stage B seconds per run (300)"
    )


def settings_from(args: argparse.Namespace) -> Settings:
    return Settings(
        stage="B" if args.real else "A",
        trials=args.trials,
        alpha=args.alpha,
        seed=args.seed,
        model=args.model,
        concurrency=args.concurrency,
        claude=args.claude,
        max_turns=args.max_turns,
        timeout=args.timeout,
    )
