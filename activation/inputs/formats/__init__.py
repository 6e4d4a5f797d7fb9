"""Case files in the formats other tools write, read into this tool's cases.

One module per format, each a pure function from a parsed file (`shape.Document`) to a
`CaseFile` and its problems; `detect` says which format a file is by its shape. Reading the
bytes is load.py's (`read_cases`). Only names live here, so the flags can offer them without
importing the parsers.
"""

from __future__ import annotations

from activation.inputs.cases import NATIVE as NATIVE

SKILL_CREATOR = "skill-creator"
PROMPTS_JSONL = "prompts-jsonl"
TRIGGER_YAML = "trigger-yaml"
SKILL_JSON = "skill-json"
PROMPT_TEXT = "prompt-text"
"""A plain-text prompt file (`.txt`): told by its suffix, not its shape."""
SHAPED: tuple[str, ...] = (NATIVE, SKILL_CREATOR, PROMPTS_JSONL, TRIGGER_YAML, SKILL_JSON)
"""The formats told by a file's shape, in the order detection tries them."""
FORMATS: tuple[str, ...] = (*SHAPED, PROMPT_TEXT)
"""Every format `--cases-format` takes."""
