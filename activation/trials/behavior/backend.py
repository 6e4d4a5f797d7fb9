"""Stage C's backend: the Stage B agent at work on a task, its workspace graded afterwards.

Each trial is one headless run of the agent CLI, isolated as Stage B's are, in a fresh
workspace holding the case's scaffold (with the result of its setup command, made once per
scaffold and copied for each trial). The arms differ only in what is installed: the set as
it is at the baseline spec or the candidate's, bodies and references included, or (`none`)
nothing of it. The agent may write in its workspace only; the run goes to its end (a load
does not stop it), then the files it left are graded: the text graders, the `command`
graders (run in the workspace, without network), the `judge` graders (a model answers YES or
NO about the files, its answers cached). A trial records whether the skill loaded, every
grader's result and the files it saw. What the adapter installed into the workspace (a
skills folder) is never graded.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Self

from activation import _config
from activation._behavior import BehaviorCase, BehaviorRunInputs
from activation._errors import InputError
from activation._models import (
    VARIANTS,
    BehaviorOptions,
    ErrorClass,
    Grade,
    RunSpec,
    Trajectory,
    Trial,
    TrialKey,
    Usage,
)
from activation.graders.base import Answer, Answers, Ask, Grader, Need, Run, Trace, Votes, needs_of
from activation.trials.agent import mcp
from activation.trials.agent.adapter import McpLaunch, RunDirs
from activation.trials.agent.backend import AgentBackend
from activation.trials.agent.installed import SkillSet, without_set
from activation.trials.agent.plugin_copy import TEMP_PREFIX, tree_digest
from activation.trials.agent.reading import AgentReader, in_workspace
from activation.trials.backend import request_digest
from activation.trials.behavior.commands import run_command
from activation.trials.behavior.graders import grade
from activation.trials.behavior.judge import ask_judge
from activation.trials.behavior.workspace import Workspace, read_workspace, write_scaffold
from activation.trials.cache import Store
from activation.trials.providers import provider_of
from activation.trials.providers.asking import Provider, call, reply_text

INVOKED = "loaded by the prompt's explicit invocation (--invoke)"
LLM_ANSWER = "response.md"
"""The file the `llm` arm's reply is graded as."""
ALONE = Trajectory(turns=1, measured=AgentReader.MEASURED | AgentReader.TOKENS | {"turns"})
"""What the `llm` arm does: one model turn (one per prompt), no tool call; the provider says
its tokens."""


class BehaviorBackend(AgentBackend):
    """Entered, it holds each arm's copy of the set and each scaffold's prepared workspace."""

    works = True

    def __init__(
        self,
        spec: RunSpec,
        inputs: BehaviorRunInputs,
        transcripts_dir: Path,
        *,
        judge_model: str,
        store: Store | None = None,
        keep_dir: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(spec, inputs, transcripts_dir, env)
        self.invoke = spec.behavior is not None and spec.behavior.invoke
        self.arms = spec.controls
        self.judge_model = judge_model
        self.judge_samples = (spec.behavior or BehaviorOptions()).judge_samples
        self.store = store
        self.keep_dir = keep_dir
        self.cases = {case.id: case for case in inputs.cases}
        self.llm_model = spec.model or judge_model
        """The `llm` arm's model: the cell's, else the judge's (the agent's CLI default
        cannot be asked without the agent)."""
        self._judge: Provider | None = None
        self._llm: Provider | None = None
        self._prepared: dict[str, Path] = {}
        self._setup_failed: dict[str, str] = {}
        self._scratch: Path | None = None
        self._installed: dict[Path, list[Path]] = {}
        """Per run's workspace, what the adapter put there (a skills folder, a config)."""

    async def __aenter__(self) -> Self:
        await super().__aenter__()
        try:
            self._scratch = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX))
            empty = self._scratch / "no-skills"
            empty.mkdir()
            self.skills["none"] = without_set(self.skills["candidate"], empty)
            self.copy_digests["none"] = "none:" + tree_digest(empty)
            for case in self.cases.values():
                mcp.check_environment(case.mcp_servers, self._parent_env, case.id)
                await self._prepare(case)
            needs = (need for case in self.cases.values() for need in needs_of(case.graders))
            if any(isinstance(need, Ask) for need in needs):
                self._judge = await self._asker(self.judge_model)
            if "llm" in self.arms:
                self._llm = await self._asker(self.llm_model)
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        try:
            for asker in (self._judge, self._llm):
                if asker is not None:
                    await asker.__aexit__(None, None, None)
            self._judge = self._llm = None
        finally:
            if self._scratch is not None:
                shutil.rmtree(self._scratch, ignore_errors=True)
            await super().__aexit__(*exc_info)

    def remote(self) -> Callable[..., AgentBackend]:
        """A node's build of this backend: its judge, no cache of this machine's (the node's
        judge answers are not kept here) and no kept workspaces (they would stay on the
        node: refused)."""
        if self.keep_dir is not None:
            raise InputError(
                "--keep-workspaces keeps the workspaces of runs on this machine: "
                "not with --executor ray"
            )
        return partial(type(self), self.spec, self.inputs, judge_model=self.judge_model)

    async def _asker(self, model: str) -> Provider:
        """A client of `model`'s provider, entered, its usage priced."""
        prices = self.pricing.for_model(model) if self.pricing else None
        asker: Provider = await provider_of(model)[1].asker(prices).__aenter__()
        return asker

    async def _prepare(self, case: BehaviorCase) -> None:
        """Lay the case's scaffold out once and run its setup command there (with network:
        an install), so each trial starts from a copy."""
        digest = case.scaffold_digest
        if digest in self._prepared or digest in self._setup_failed:
            return
        assert self._scratch is not None
        folder = self._scratch / "scaffolds" / digest[:16]
        folder.mkdir(parents=True)
        write_scaffold(case.scaffold, folder)
        if case.setup_command:
            done = await run_command(
                case.setup_command,
                folder,
                _config.BEHAVIOR_SETUP_TIMEOUT,
                network=True,
                parent=self._parent_env,
            )
            if done.exit_code != 0:
                how = "timed out" if done.timed_out else f"exited {done.exit_code}"
                tail = " ".join(done.output.split())[-300:]
                self._setup_failed[digest] = f"the case's setup command {how}: {tail}"
                return
        self._prepared[digest] = folder

    async def run(self, key: TrialKey, throttled: Callable[[], None] = lambda: None) -> Trial:
        failed = self._setup_failed.get(self.cases[key.case.id].scaffold_digest)
        if failed is not None:
            return key.failed(failed, kind=ErrorClass.AGENT_SETUP)
        if key.variant == "llm":
            return await self._answer_alone(key)
        return await super().run(key, throttled)

    async def _answer_alone(self, key: TrialKey) -> Trial:
        """The `llm` arm, the seeds' baseline mode: one model call with the case's system
        prompt and task (and one more per prompt of its `turns`, the conversation so far
        before it), no agent and no skill; its last reply is the one file it leaves
        (`response.md`, beside the scaffold), graded as an agent's files are."""
        case = self.cases[key.case.id]
        assert self._llm is not None and self._scratch is not None
        messages: list[dict[str, str]] = []
        spent = Usage()
        for prompt in case.prompts:
            messages.append({"role": "user", "content": prompt})
            request = {
                "model": provider_of(self.llm_model)[0].id,
                "max_tokens": _config.BEHAVIOR_LLM_MAX_TOKENS,
                "system": case.system or "",
                "messages": list(messages),
            }
            answer = await call(self._llm, request, reply_text)
            spent += answer.usage
            if answer.value is None:
                return key.failed(
                    f"the model gave no answer: {answer.problem}", spent, kind=ErrorClass.MODEL
                )
            messages.append({"role": "assistant", "content": answer.value})
        work = Path(tempfile.mkdtemp(prefix="activation-llm-", dir=self._scratch))
        try:
            shutil.copytree(self._prepared[case.scaffold_digest], work, dirs_exist_ok=True)
            (work / LLM_ANSWER).write_text(messages[-1]["content"], encoding="utf-8")
            calls = (
                "one model call" if len(case.prompts) == 1 else f"{len(case.prompts)} model calls"
            )
            trial = key.graded(False, (), (), self.skill_id, usage=spent,
                               evidence=f"{calls}, no agent")  # fmt: skip
            alone = replace(ALONE, turns=len(case.prompts))
            trial = replace(trial, trajectory=in_workspace(alone, (), spent.cost_usd is not None))
            return await self._graded(key, trial, work, [])
        finally:
            shutil.rmtree(work, ignore_errors=True)

    async def _lay_out(self, key: TrialKey, dirs: RunDirs) -> None:
        prepared = self._prepared[self.cases[key.case.id].scaffold_digest]
        shutil.copytree(prepared, dirs.work, dirs_exist_ok=True, symlinks=True)
        cut_links_out(dirs.work)

    def _laid_out(self, key: TrialKey, dirs: RunDirs) -> None:
        """What the adapter added to the workspace is the agent's equipment, never graded."""
        prepared = self._prepared[self.cases[key.case.id].scaffold_digest]
        ours = {entry.name for entry in prepared.iterdir()}
        self._installed[dirs.work] = [
            Path(entry.name) for entry in dirs.work.iterdir() if entry.name not in ours
        ]

    def _mcp_servers(self, key: TrialKey, dirs: RunDirs, node: str) -> tuple[McpLaunch, ...]:
        servers = self.cases[key.case.id].mcp_servers
        return mcp.laid_out(servers, dirs.home, self._parent_env, node)

    def _prompt(self, key: TrialKey, skills: SkillSet) -> str:
        if self.invoke and not skills.target.absent:
            return self.adapter.invoked(key.case.prompt, skills.target)
        return key.case.prompt

    def _turns(self, key: TrialKey) -> tuple[str, ...]:
        return self.cases[key.case.id].turns

    async def _finish(self, key: TrialKey, trial: Trial, dirs: RunDirs) -> Trial:
        installed = self._installed.pop(dirs.work, [])
        servers = self.cases[key.case.id].mcp_servers
        if servers and trial.trajectory is not None:
            trial = replace(trial, trajectory=mcp.named(trial.trajectory, servers,
                                                        self.adapter.agent.mcp_prefix))  # fmt: skip
        if trial.is_error:
            return trial
        if self.invoke and key.variant in VARIANTS and self.skill_id not in trial.chose:
            # The prompt itself loads the skill (the agent's explicit invocation): its body
            # is in the first request, with no tool call for a detector to see.
            trial = replace(trial, activated=True, chose=(self.skill_id, *trial.chose),
                            evidence=f"{INVOKED}; {trial.evidence}")  # fmt: skip
        return await self._graded(key, trial, dirs.work, installed)

    async def _graded(
        self, key: TrialKey, trial: Trial, work: Path, installed: list[Path]
    ) -> Trial:
        """`trial` (its run over) with the files it left in `work` graded."""
        case = self.cases[key.case.id]
        workspace = read_workspace(work, installed)
        answers: dict[Need, Answer] = {}
        spent = trial.usage
        for need in needs_of(case.graders):
            if isinstance(need, Trace):
                answers[need] = trial.trajectory or Trajectory()
            elif isinstance(need, Run):
                answers[need] = await run_command(
                    need.command, work, need.timeout, parent=self._parent_env
                )
            else:
                answers[need], usage = await self._ask_judge(
                    need.question, need.examples, workspace
                )
                spent += usage
        grading = grade(case.graders, workspace, answers)
        grades = tuple(
            Grade(
                result.grader.description,
                result.grader.type,
                result.grader.level,
                result.outcome,
                result.why,
                votes_of(result.grader, answers),
                result.grader.follows,
            )
            for result in grading.results
        )
        kept = self._keep(key, work)
        if grading.error:
            broken = next(grade for grade in grades if grade.outcome == "error")
            failed = key.failed(f"grader {broken.grader!r}: {broken.why}", spent, trial.transcript,
                                kind=ErrorClass.GRADER)  # fmt: skip
            return replace(failed, grades=grades, files=workspace.paths, workspace=kept,
                           trajectory=trial.trajectory)  # fmt: skip
        graded = key.graded(
            grading.passed,
            grades,
            trial.chose,
            self.skill_id,
            files=workspace.paths,
            evidence=trial.evidence,
            usage=spent,
            transcript=trial.transcript,
            workspace=kept,
        )
        return replace(graded, trajectory=trial.trajectory)

    async def _ask_judge(
        self, question: str, examples: str | None, workspace: Workspace
    ) -> tuple[Votes, Usage]:
        assert self._judge is not None
        model_id = provider_of(self.judge_model)[0].id
        return await ask_judge(self._judge, self.judge_model, model_id, question, examples,
                               workspace, self.store, self.judge_samples)  # fmt: skip

    def _keep(self, key: TrialKey, work: Path) -> str | None:
        if self.keep_dir is None:
            return None
        kept = self.keep_dir / _safe(key.case.id) / f"{key.variant}-{key.index}"
        shutil.rmtree(kept, ignore_errors=True)
        shutil.copytree(work, kept, symlinks=True)
        return str(kept)

    def cache_key(self, key: TrialKey) -> str:
        """Everything that decides a trial: the agent and its version, the arm's copy of
        the set, the scaffold and its setup, the prompt as sent, the model, the graders
        and the judge, and the trial's index."""
        case = self.cases[key.case.id]
        if key.variant == "llm":
            alone = {
                "model": self.llm_model,
                "system": case.system,
                "prompt": key.case.prompt,
                **({"turns": list(case.turns)} if case.turns else {}),
                "scaffold": case.scaffold_digest,
                "graders": [grader.identity() for grader in case.graders],
                "judge": self.judge_model,
                **self._samples(),
            }
            return request_digest("llm:behavior", alone, key)
        run = {
            **self._asked(key),
            **mcp.asked(case.mcp_servers),
            "scaffold": case.scaffold_digest,
            "graders": [grader.identity() for grader in case.graders],
            "judge": self.judge_model,
            **self._samples(),
        }
        return request_digest(f"{self.agent.name}:behavior", run, key)

    def _samples(self) -> dict[str, int]:
        """The judge's samples, in a trial's key only when there are several (the keys of
        one answer stay those earlier versions wrote)."""
        return {} if self.judge_samples == 1 else {"judge_samples": self.judge_samples}


def votes_of(grader: Grader, answers: Answers) -> tuple[int, int] | None:
    """A judge grader's (YES, NO) samples when it asked more than one; None for any other."""
    if grader.type != "judge":
        return None
    votes = next(answers[need] for need in grader.own_needs() if isinstance(need, Ask))
    if not isinstance(votes, Votes) or len(votes.samples) < 2:
        return None
    return votes.yes, votes.no


def cut_links_out(root: Path) -> None:
    """Remove every symbolic link under `root` that leads out of it (a setup command may
    leave one): an agent that follows links (OpenCode does) would write through it."""
    inside = root.resolve()
    for folder, subfolders, names in os.walk(root):
        for name in (*subfolders, *names):
            path = Path(folder) / name
            if path.is_symlink() and not path.resolve().is_relative_to(inside):
                path.unlink()


def _safe(name: str) -> str:
    return "".join(char if char.isalnum() or char in "._-" else "_" for char in name) or "case"
