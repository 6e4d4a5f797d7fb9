"""The GitHub Action's step (`action.yml`): run the gate, then keep the pull request's one
comment up to date over GitHub's REST API.

Run as `python -m activation.commands.ci_comment --command "changed --base git:origin/main"`
by the action, with the workflow's environment (`GITHUB_EVENT_PATH`, `GITHUB_TOKEN`,
`GITHUB_API_URL`, `GITHUB_REPOSITORY`, `GITHUB_STEP_SUMMARY`, `GITHUB_OUTPUT`). The decisions
are `activation.report.pr_comment`'s; here are the runs, the files and the requests, made
with the standard library's HTTP client (no SDK). Exits as the gate did: a comment that
cannot be posted is a warning, never the check's verdict.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from activation import __version__
from activation.report.pr_comment import (
    NOT_RUN,
    SKIPPED,
    Comment,
    Create,
    Leave,
    Update,
    comment_body,
    decide,
    from_fork,
    gate_command,
    keyless_commands,
    missing_key,
    pull_number,
    skipped_lines,
    skipped_markdown,
    verdict_of,
)

NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')
PER_PAGE = 100


class GitHub:
    """The three requests the comment needs: list a pull request's comments (every page),
    create one, update one."""

    def __init__(self, api: str, repository: str, token: str) -> None:
        self.api = api.rstrip("/")
        self.repository = repository
        self.token = token

    def _request(self, method: str, url: str, body: Mapping[str, str] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("Authorization", f"Bearer {self.token}")
        request.add_header("X-GitHub-Api-Version", "2022-11-28")
        request.add_header("User-Agent", f"activation/{__version__}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=30) as response:
            found = NEXT.search(response.headers.get("Link") or "")
            return json.loads(response.read()), found.group(1) if found else None

    def comments(self, number: int) -> list[Comment]:
        url: str | None = (
            f"{self.api}/repos/{self.repository}/issues/{number}/comments?per_page={PER_PAGE}"
        )
        found: list[Comment] = []
        while url is not None:
            page, url = self._request("GET", url)
            found += [Comment(int(entry["id"]), str(entry.get("body") or "")) for entry in page]
        return found

    def create(self, number: int, body: str) -> int:
        url = f"{self.api}/repos/{self.repository}/issues/{number}/comments"
        created, _ = self._request("POST", url, {"body": body})
        return int(created["id"])

    def update(self, comment: int, body: str) -> None:
        url = f"{self.api}/repos/{self.repository}/issues/comments/{comment}"
        self._request("PATCH", url, {"body": body})


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m activation.commands.ci_comment",
        description="Run the gate and keep the pull request's one activation comment.",
    )
    parser.add_argument("--command", required=True, help="the activation command's arguments")
    parser.add_argument("--json", default="activation-report.json", help="the JSON report")
    parser.add_argument("--markdown", default="activation-report.md", help="its Markdown")
    parser.add_argument("--max-cost-usd", default="", help="the cost ceiling, if any")
    parser.add_argument("--no-comment", action="store_true", help="only the job summary")
    return parser.parse_args(argv)


def activation(command: Sequence[str]) -> int:
    """One activation command, with this interpreter's install; its output goes to the log."""
    sys.stdout.flush()
    return subprocess.run([sys.executable, "-m", "activation", *command], check=False).returncode


def append(env: str, text: str) -> None:
    """Append to the file a GitHub variable names (the job summary, the step's outputs)."""
    path = os.environ.get(env)
    if path:
        with Path(path).open("a", encoding="utf-8") as file:
            file.write(text)


def run_gate(
    command: list[str], outputs: list[str], markdown: Path, fork: bool
) -> tuple[int, str, str | None, list[str]]:
    """The exit code, verdict, Markdown and skipped lines of the run: the command with its
    `outputs` (the report files, the ceiling), or what needs no key in its stead when a
    model it calls needs one and there is none."""
    if missing_key(command, os.environ):
        codes = [activation(keyless) for keyless in keyless_commands(command)]
        code = next((code for code in codes if code), 0)
        skipped = skipped_lines(command, fork)
        append("GITHUB_STEP_SUMMARY", f"{NOT_RUN}\n\n{skipped_markdown(skipped)}\n")
        return code, SKIPPED if code == 0 else verdict_of(code), None, skipped
    markdown.unlink(missing_ok=True)
    code = activation(gate_command(command, outputs))
    text = markdown.read_text(encoding="utf-8") if markdown.is_file() else None
    return code, verdict_of(code), text, []


def footer() -> str:
    server = os.environ.get("GITHUB_SERVER_URL", "")
    repository = os.environ.get("GITHUB_REPOSITORY", "")
    run = os.environ.get("GITHUB_RUN_ID", "")
    where = f"[the run]({server}/{repository}/actions/runs/{run})" if run else "the run"
    return (
        f"activation {__version__}: {where} has the log and the reports. This comment is "
        "updated on every push; a new one is posted when the verdict changes."
    )


def keep_comment(number: int, body: str) -> str:
    """Find our comment, then update it, post a new one, or leave it; what was done."""
    api = os.environ.get("GITHUB_API_URL", "https://api.github.com")
    github = GitHub(api, os.environ["GITHUB_REPOSITORY"], os.environ.get("GITHUB_TOKEN", ""))
    match decide(github.comments(number), body):
        case Create(body=text):
            return f"posted comment {github.create(number, text)}"
        case Update(id=comment, body=text):
            github.update(comment, text)
            return f"updated comment {comment}"
        case Leave(id=comment):
            return f"comment {comment} already says this"


def main(argv: Sequence[str]) -> int:
    args = parse(argv)
    event_path = os.environ.get("GITHUB_EVENT_PATH")
    event = json.loads(Path(event_path).read_bytes()) if event_path else {}
    fork = from_fork(event)
    outputs = ["--json", args.json, "--markdown", args.markdown]
    outputs += ["--max-cost-usd", args.max_cost_usd] if args.max_cost_usd else []
    command = shlex.split(args.command)
    code, verdict, markdown, skipped = run_gate(command, outputs, Path(args.markdown), fork)
    append("GITHUB_OUTPUT", f"exit-code={code}\nverdict={verdict}\n")
    number = pull_number(event)
    if args.no_comment or number is None:
        print("activation: no pull-request comment (comment off, or no pull request)")
        return code
    if fork:
        print("activation: a fork's pull request has a read-only token: no comment; the job "
              "summary has the verdict")  # fmt: skip
        return code
    body = comment_body(
        command=args.command,
        verdict=verdict,
        exit_code=code,
        markdown=markdown,
        skipped=skipped,
        footer=footer(),
    )
    try:
        print(f"activation: {keep_comment(number, body)} on pull request {number}")
    except (urllib.error.URLError, OSError, ValueError, KeyError) as error:
        print(f"::warning::activation could not keep its pull-request comment: {error}")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
