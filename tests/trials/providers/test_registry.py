"""The providers' registry: `--model` read once into (provider, id), each provider found by
name and saying what it can do, agents told which models they cannot run, and no code
outside a provider's module asking for a provider by its name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from activation._errors import InputError
from activation._models import ModelRef
from activation.trials.providers import (
    NO_COUNTING,
    PROVIDER_MODULES,
    Uncounted,
    parse_model,
    provider_named,
    provider_of,
    runnable,
)

PACKAGE = Path(__file__).resolve().parents[3] / "activation"
BEDROCK = "us.anthropic.claude-haiku-4-5-v1:0"
"""A cloud id with a colon in it: still Anthropic's."""


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("claude-sonnet-5-5", ModelRef("anthropic", "claude-sonnet-5-5")),
        (BEDROCK, ModelRef("anthropic", BEDROCK)),
        ("anthropic:claude-haiku-4-5", ModelRef("anthropic", "claude-haiku-4-5")),
        ("openai:gpt-5.5", ModelRef("openai", "gpt-5.5")),
        ("openai:", ModelRef("openai", "")),
        ("openai-compatible:qwen3", ModelRef("openai-compatible", "qwen3")),
        ("openai-compatible:Qwen/Qwen3-8B:q4", ModelRef("openai-compatible", "Qwen/Qwen3-8B:q4")),
        ("mock", ModelRef("mock", "mock")),
        ("cursor:model", ModelRef("anthropic", "cursor:model")),
    ],
)  # fmt: skip
def test_a_model_is_read_into_its_provider_and_id(model: str, expected: ModelRef) -> None:
    assert parse_model(model) == expected


def test_each_provider_says_what_it_can_do() -> None:
    found = {
        name: (
            provider_named(name).name,
            provider_named(name).key_variables,
            provider_named(name).url_variable,
            provider_named(name).batches,
            provider_named(name).free,
            provider_named(name).proposes,
        )
        for name in PROVIDER_MODULES
    }
    assert found == {
        "anthropic": ("anthropic", ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
                      "ANTHROPIC_BASE_URL", True, None, True),
        "openai": ("openai", ("OPENAI_API_KEY",), "OPENAI_BASE_URL", False, None, True),
        "openai-compatible": ("openai-compatible", ("ACTIVATION_OPENAI_COMPATIBLE_API_KEY",),
                              "ACTIVATION_OPENAI_COMPATIBLE_BASE_URL", False, None, True),
        "google": ("google", ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "GOOGLE_GEMINI_BASE_URL",
                   False, None, True),
        "mock": ("mock", (), None, False, "the mock model is free", True),
    }  # fmt: skip


def test_only_anthropic_counts_tokens_and_only_with_a_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    why = {}
    for name in PROVIDER_MODULES:
        with pytest.raises(Uncounted) as raised:
            provider_named(name).count_tokens([], 1)
        why[name] = str(raised.value)
    assert why == {
        "anthropic": "no API key to count with",
        "openai": NO_COUNTING,
        "openai-compatible": NO_COUNTING,
        "google": NO_COUNTING,
        "mock": NO_COUNTING,
    }


def test_an_unregistered_provider_is_no_provider() -> None:
    with pytest.raises(KeyError, match="no model provider 'cursor'"):
        provider_named("cursor")


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("openai:", "--model openai: names no model: pass --model openai:<id>"),
        ("anthropic:", "--model anthropic: names no model: pass --model anthropic:<id>"),
        ("mock:other", "--model mock:other: the mock has one model: pass --model mock"),
    ],
)
def test_a_model_its_provider_cannot_ask_is_one_input_error(model: str, message: str) -> None:
    with pytest.raises(InputError) as raised:
        provider_of(model)
    assert str(raised.value) == message


def test_an_agent_runs_only_its_providers_models() -> None:
    assert runnable("openai:gpt-5.5", ("openai",), "Codex") == ModelRef("openai", "gpt-5.5")
    with pytest.raises(InputError) as raised:
        runnable("mock", ("anthropic", "openai"), "Some Agent")
    assert str(raised.value) == "--model mock: Some Agent runs models of anthropic, openai"


def compared_names(tree: ast.AST) -> list[tuple[int, str]]:
    """Provider names or prefixes (`"openai"`, `"openai:"`) a module compares a string with
    or tests a string's start or end against."""
    names = set(PROVIDER_MODULES) | {f"{name}:" for name in PROVIDER_MODULES}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            tests = ("startswith", "endswith", "removeprefix", "partition", "split")
            operands = list(node.args) if node.func.attr in tests else []
        else:
            continue
        for operand in operands:
            for leaf in ast.walk(operand):
                if isinstance(leaf, ast.Constant) and leaf.value in names:
                    found.append((node.lineno, str(leaf.value)))
    return found


def test_no_code_outside_the_providers_compares_a_providers_name() -> None:
    outside = {
        path.relative_to(PACKAGE).as_posix(): compared_names(ast.parse(path.read_text()))
        for path in PACKAGE.rglob("*.py")
        if "providers" not in path.relative_to(PACKAGE).parts
    }
    assert {path: names for path, names in outside.items() if names} == {}
    probe = ast.parse('if model.startswith("openai:") or provider == "mock": pass')
    assert compared_names(probe) == [(1, "openai:"), (1, "mock")]


def test_each_provider_says_where_an_agent_cli_reaches_it() -> None:
    """What Stage B and C tell an agent CLI: the key, the address (its variable, else the
    default) and the API to speak, from the provider's record alone."""
    found = {
        name: (
            provider_named(name).key_variables[:1],
            provider_named(name).url_variable,
            provider_named(name).default_url,
            provider_named(name).api,
        )
        for name in PROVIDER_MODULES
    }
    assert found == {
        "anthropic": (
            ("ANTHROPIC_API_KEY",), "ANTHROPIC_BASE_URL", "https://api.anthropic.com", "messages",
        ),
        "openai": (("OPENAI_API_KEY",), "OPENAI_BASE_URL", "https://api.openai.com/v1",
                   "responses"),
        "openai-compatible": (
            ("ACTIVATION_OPENAI_COMPATIBLE_API_KEY",), "ACTIVATION_OPENAI_COMPATIBLE_BASE_URL",
            None, "chat-completions",
        ),
        "google": (("GEMINI_API_KEY",), "GOOGLE_GEMINI_BASE_URL",
                   "https://generativelanguage.googleapis.com", "generate-content"),
        "mock": ((), None, None, "none"),
    }  # fmt: skip
