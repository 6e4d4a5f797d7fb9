"""Every default of the tool, once: flags, help texts and library callers all read them here."""

from pathlib import PurePath

DISTRIBUTION = "skill-activation"
"""The name the package index knows the tool by (`activation` there is another project's);
the command and the import package stay `activation`."""

TRIALS = 3
"""Trials per case and variant in the first round."""
MAX_TRIALS = 30
"""Trials per variant a suspicious case may escalate to (see verdicts/escalation.py)."""
ALPHA = 0.05
SEED = 0
"""Seed of the per-trial menu shuffle."""
CONCURRENCY = 8
"""Stage A's model calls in flight at the start (the limit then adapts, see MAX_CONCURRENCY),
and the engine's fixed limit for a spec that sets none (a library call)."""
AGENT_CONCURRENCY = 4
"""Stage B's agent processes at once (fixed: each is a whole CLI run on this machine)."""
MAX_CONCURRENCY = 128
"""The ceiling of an adaptive limit (`--concurrency auto`): it grows while the API keeps up
and halves on a 429 or 529."""

AGENT = "claude-code"
"""The agent a run measures unless `--agent` names others (trials/agents: each agent's own
record, listing and Stage B adapter)."""
AGENT_METADATA = ("agents", (".yaml", ".yml"))
"""Where a skill folder keeps its per-agent metadata files (`agents/<vendor>.yaml`, the
Agent Skills layout): read with its SKILL.md, since an agent's own file there can hide a
skill from the model (trials/agents/<agent>/listing.py says which file and rule)."""
AGENT_METADATA_LIMIT = 65_536
"""The largest metadata file read (bytes); a larger one is left out."""
MODEL = "claude-sonnet-5-5"
"""Stage A's classifier model; Stage B leaves the CLI's own default alone unless asked."""
PROVIDER = "anthropic"
"""The provider of a model id without a prefix; `<provider>:<id>` names another one
(trials/providers: `openai:<id>`, `openai-compatible:<id>`), and `mock` is the mock model."""
OPENAI_COMPATIBLE_KEY = "not-needed"
"""The key sent to an OpenAI-compatible server when none is set: local servers (vLLM,
llama.cpp) ask for none, but the `openai` SDK sends one."""
MAX_TOKENS = 4096
"""Stage A's answer budget: room for a thinking model's reasoning before its short answer."""
CACHE_MIN_TOKENS = 1024
"""The shortest prefix the API caches (larger for some models): a cost estimate counts a
shorter listing as uncached."""
MENU_ORDERS = 4
"""Stage A's listing orders: rotations of one seeded order, taken in turn by each case's
trials, so position bias cancels over trials while the listing stays a cacheable prefix."""
API_RETRIES = 4
"""The SDK's own retries of 408/409/429/5xx, honouring `retry-after`."""
CLI_API_ATTEMPTS = API_RETRIES + 1
"""An agent CLI's own attempts per model request, where it has a setting for them (Gemini
CLI's `general.maxAttempts`, 10 by default: a failing API would hold a trial for minutes)."""
REQUEST_TIMEOUT = 180.0
"""Seconds per Stage A request."""

INFRASTRUCTURE_RETRIES = 2
"""Times a trial whose environment failed (sandbox, proxy, worker) is run again; each retry
is counted and reported, and only the last attempt is the trial."""
MIN_COVERAGE = 0.8
"""`--min-coverage`: a cell with fewer of its planned trials scored (errors are not) is
not judged: the run exits 3 naming it."""

MAX_TURNS = 8
TIMEOUT = 300.0
"""Seconds per Stage B run."""
SANDBOX_IMAGE = "activation-sandbox:bookworm"
"""The container image of `--sandbox docker` (docs/sandboxes.md builds it)."""

CACHE_TTL = "14d"
"""How long a cached answer is reused: a model id can change behaviour under the same name."""
CACHE_ENV = "ACTIVATION_CACHE_DIR"
"""Overrides the response cache's folder (the user cache directory by default)."""
CACHE_APP = "activation"
"""The folder name under the user cache directory (platformdirs)."""

PRICING_FILE = "pricing.toml"
"""The price table shipped with the package: list prices per model, with their date."""
BATCH_DISCOUNT = 0.5
"""Message Batches cost half the list price."""
STAGE_A_OUTPUT_ESTIMATE = 100
"""Output tokens a Stage A answer is assumed to take in cost estimates (a short JSON answer;
a model that thinks first may take more, up to MAX_TOKENS)."""
STAGE_B_RUN_ESTIMATE = (30_000, 1_000)
"""(input, output) tokens one Stage B agent run is assumed to take in cost estimates: a rough
figure for the CLI's own system prompt and tools plus a few turns."""

BATCH_MAX_REQUESTS = 100_000
"""The Message Batches API's limit on requests per batch."""
BATCH_MAX_BYTES = 256_000_000
"""The Message Batches API's limit on a batch's size (256 MB), counted on the JSON sent."""
BATCH_POLL = (0.5, 1.5, 60.0)
"""Batch polling: first wait, growth factor, longest wait (seconds)."""
BATCH_CANCEL_TIMEOUT = 10.0
"""Seconds an interrupted run waits for the API to accept a batch's cancellation."""

DESCRIPTION_LIMIT = 1024
"""The agent cuts descriptions longer than this."""
SIMILAR_WARN = 0.5
SIMILAR_ERROR = 0.75
"""`lint`: two skills of one menu whose entries share this much of their content words
(Dice coefficient, see inputs/overlap.py) are a warning, and from SIMILAR_ERROR an error."""
LONG_PROMPT = 20_000
"""Characters above which a prompt gets a warning: it is probably pasted by mistake."""
LARGE_PLAN = 10_000
"""Model calls above which a plan gets a warning before it starts spending."""

BASELINE = "git:HEAD"
SKILL_PATH = PurePath("plugins/auth0/skills/auth0/SKILL.md")
"""The default `--skill-path`, relative to the repo; else the only SKILL.md under plugins/."""
PLUGINS_DIR = "plugins"
AGENT_SKILL_FOLDERS = (".github/skills", ".opencode/skills", ".codex/skills", ".gemini/skills")
"""The project skills folders of one agent each (GitHub Copilot's, OpenCode's, Codex's, Gemini
CLI's, as their sources and docs name them): a set like `.claude/skills/`, measured as it
would be installed for every agent."""
SKILL_FOLDERS = (".claude/skills", "skills", ".agents/skills", *AGENT_SKILL_FOLDERS)
"""The skills-folder layouts looked for at a repo's root (a project's Claude Code skills, the
Agent Skills layouts, and each agent's own project folder): their skills are invoked by bare
name."""
STATE_DIR = ".activation"
"""The state folder in the target repo: Stage A flags and Stage B transcripts."""
DEBUG_ENV = "ACTIVATION_DEBUG"
"""Set to 1 to get the traceback of an internal error."""

CONFIG_FILE = "activation.toml"
"""The project's settings file at the target repo's root (or `[tool.activation]` in
pyproject.toml; one of the two)."""
PYPROJECT = "pyproject.toml"
ENV_PREFIX = "ACTIVATION_"
"""`ACTIVATION_<KEY>`: every setting from the environment, KEY its flag upper-cased, - as _."""
SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
"""The job summary file of a GitHub Actions step: the Markdown report is appended to it."""
SUMMARY_LIST_LIMIT = 25
"""Flagged cases listed by name in the Markdown report: it must stay short enough to be a
pull-request comment; the rest are counted, and the HTML and JSON reports list them all."""

SUGGEST_ROUNDS = 3
"""`suggest`: rounds of proposals at most (it stops sooner when a round finds nothing better)."""
SUGGEST_PROPOSALS = 4
"""`suggest`: descriptions the proposer is asked for each round."""
SUGGEST_MAX_TOKENS = 2_000
"""`suggest`: the proposer's answer, at most (K descriptions of up to 1,024 characters)."""
SUGGEST_SHARES = (0.4, 0.3, 0.3)
"""`suggest --splits`: the cases' shares of the train, select and holdback splits (proposals
see train's failures, each is gated on select, the chosen one is scored once on holdback)."""
SUGGEST_MIN_CASES = (6, 7, 7)
"""`suggest`: the fewest cases of the train, select and holdback splits; each of select and
holdback also needs a case that should load the skill and one that should not. Chosen so a
40-case suite passes at almost every seed (98 % of 500 seeds in four strata of 10 cases,
100 % in twelve strata; 92 % with 8 per split), and the bundled 95-case suite at every one."""
SUGGEST_STRATUM = 3
"""`suggest`: a stratum (expected skill x group) of this many cases or more gets a case in
every split, even when its cases' hashes leave a split empty."""
SUGGEST_BODY_CHARS = 4_000
"""`suggest`: the characters of the SKILL.md body the proposer is shown (the rest is cut)."""

BEHAVIOR_COMMAND_TIMEOUT = 60.0
"""Stage C: seconds a `command` grader may run in the workspace when it sets no `timeout`
(a time-out fails the grader)."""
BEHAVIOR_MAX_FILE_BYTES = 1_000_000
"""Stage C: a workspace file larger than this is not graded (a bundle or a data dump, not
code the agent wrote by hand); the workspace lists it as skipped."""
BEHAVIOR_JUDGE_MAX_CHARS = 100_000
"""Stage C: the characters of workspace files a judge is shown at most; the files past it
are named as left out, so the judge knows it did not see everything."""

BEHAVIOR_MAX_TURNS = 30
"""Stage C: turns an agent run may take (a task needs more than Stage B's look around)."""
BEHAVIOR_TIMEOUT = 600.0
"""Stage C: seconds per agent run."""
BEHAVIOR_SETUP_TIMEOUT = 600.0
"""Stage C: seconds a case's setup command may run (once per scaffold, before any trial)."""
BEHAVIOR_JUDGE_MODEL = "claude-haiku-5-5"
"""Stage C: the model that answers `judge` graders unless `--judge-model` names another."""
JUDGE_SAMPLES = 1
"""Stage C: how many times each judge question is asked (`--judge-samples`); one answer is
the judge as it always was, more show its own variance and take the majority."""
BEHAVIOR_JUDGE_MAX_TOKENS = 1024
"""Stage C: the most a judge's answer (reasoning and verdict) may take."""
BEHAVIOR_LLM_MAX_TOKENS = 16_000
"""Stage C: the most the `llm` arm's one answer may take (a whole file or several)."""
BEHAVIOR_RUN_ESTIMATE = (150_000, 6_000)
"""(input, output) tokens one Stage C run is assumed to take in cost estimates: the CLI's
own prompt and tools over a task's turns, each turn sending the conversation again."""
BEHAVIOR_JUDGE_ESTIMATE = (6_000, 400)
"""(input, output) tokens one judge question is assumed to take in cost estimates: the case's
question and the workspace's files it is shown, its reasoning and verdict."""
BEHAVIOR_RUN_SECONDS = 120
"""Stage C: how long one agent run at work is assumed to take, for a dry run's time."""
BEHAVIOR_TRIALS = 3
"""Stage C's first round: trials (whole agent runs) per behavior case and arm. Measured by
benchmarks/behavior_gate.py (15 cases around a 0.9 pass rate, a judge that flips 10 % of
grades, 1,000 seeded runs each): at 3 / 21, A/A failed 0.2 % of runs, an edit breaking one
case (0.9 -> 0.1) was caught in 90.0 % (88.0-91.7 %), one halving every case failed 99.5 %;
163 agent runs a run when nothing changed (5.4 per case and arm; 216 at the 95th percentile).
A first round of 2 caught the broken case in 84 % (2 / 20)."""
BEHAVIOR_MAX_TRIALS = 21
"""Stage C's most trials per arm a suspicious case escalates to: the smallest that catches a
broken case in 90 % of runs (19 caught 88.5 %, 20 85.5 %; 24 caught 90.5 %). A lone mild drop
(0.9 -> 0.5) is not promised: with Benjamini-Hochberg over 15 cases its p must fall below
about 0.05 / 15, and it was seen (REGRESSED or WEAKENED) in 24 % of runs at 3 / 21, 61 % at
3 / 90, 88 % only at a fixed 60 trials per case and arm."""

COST_MARGIN = 0.25
"""`--fail-on cost` fails the gate when the candidate costs significantly more than the
baseline by more than this share (0.25: more than 25 % more); the efficiency benchmark
measures its false alarms and power."""
