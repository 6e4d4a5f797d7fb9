"""The description is the one thing measured: it must be read exactly as YAML reads it."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from activation._config import DESCRIPTION_LIMIT
from activation._errors import InputError
from activation.inputs.frontmatter import (
    name_problems,
    quoted_as_claude_code,
    read_description,
    split_document,
)


def skill(*frontmatter: str, body: str = "# Body\n", newline: str = "\n", bom: bool = False) -> str:
    lines = ["---", *frontmatter, "---"]
    text = newline.join(lines) + newline + body.replace("\n", newline)
    return ("\ufeff" if bom else "") + text


def test_limit_is_the_agents() -> None:
    assert DESCRIPTION_LIMIT == 1024


def test_plain_description() -> None:
    document = split_document(skill("name: auth0", "description: Use for login."), "S")
    assert document.description == "Use for login."
    assert document.name == "auth0"
    assert document.frontmatter == {"name": "auth0", "description": "Use for login."}
    assert document.frontmatter_text == "name: auth0\ndescription: Use for login."
    assert document.body == "# Body\n"


def test_crlf() -> None:
    text = skill("name: x", "description: Use for login.", newline="\r\n")
    document = split_document(text, "S")
    assert document.description == "Use for login."
    assert document.body == "# Body\n"


def test_bom() -> None:
    assert read_description(skill("description: Use for login.", bom=True), "S") == "Use for login."


def test_bom_and_crlf_together() -> None:
    text = skill("description: Use for login.", newline="\r\n", bom=True)
    assert read_description(text, "S") == "Use for login."


def test_double_quoted_with_colon_space_and_hash() -> None:
    text = skill('description: "Use when: the user asks about #auth or a # comment"')
    assert read_description(text, "S") == "Use when: the user asks about #auth or a # comment"


def test_single_quoted_with_colon_space_hash_and_escaped_quote() -> None:
    text = skill("description: 'It''s for: tokens # and sessions'")
    assert read_description(text, "S") == "It's for: tokens # and sessions"


def test_double_quoted_escapes() -> None:
    text = skill('description: "Say \\"login\\"\\tnow"')
    assert read_description(text, "S") == 'Say "login"\tnow'


def test_unquoted_space_hash_starts_a_comment() -> None:
    """YAML semantics, not a regex: an unquoted ` #` ends the value."""
    assert read_description(skill("description: Use for login # not shown"), "S") == (
        "Use for login"
    )


def test_unquoted_hash_without_space_is_content() -> None:
    assert read_description(skill("description: Use for C#and F#"), "S") == "Use for C#and F#"


def test_folded_block_scalar() -> None:
    text = skill(
        "description: >",
        "  Use for login",
        "  and tokens.",
        "",
        "  Not for billing.",
        "name: x",
    )
    assert read_description(text, "S") == "Use for login and tokens.\nNot for billing."


def test_literal_block_scalar() -> None:
    text = skill("description: |", "  Use for login.", "  Not for billing.", "name: x")
    assert read_description(text, "S") == "Use for login.\nNot for billing."


def test_folded_strip_block_scalar() -> None:
    text = skill("description: >-", "  Use for login", "  and tokens: all of it # really")
    assert read_description(text, "S") == "Use for login and tokens: all of it # really"


def test_literal_strip_block_scalar() -> None:
    text = skill("description: |-", "  Use for login", "    and tokens.")
    assert read_description(text, "S") == "Use for login\n  and tokens."


def test_block_scalar_keeps_its_text_but_not_the_trailing_newline() -> None:
    document = split_document(skill("description: |", "  One.", "  Two.", "name: x"), "S")
    assert document.frontmatter["description"] == "One.\nTwo.\n"
    assert document.description == "One.\nTwo."


def test_block_scalar_with_crlf() -> None:
    text = skill("description: >", "  Use for login", "  and tokens.", newline="\r\n")
    assert read_description(text, "S") == "Use for login and tokens."


def test_surrounding_whitespace_is_stripped() -> None:
    assert read_description(skill('description: "  padded  "'), "S") == "padded"


def test_dot_dot_dot_closes_the_frontmatter() -> None:
    text = "---\ndescription: Use for login.\n...\nbody\n"
    document = split_document(text, "S")
    assert document.description == "Use for login."
    assert document.body == "body\n"


def test_missing_frontmatter() -> None:
    with pytest.raises(InputError) as error:
        read_description("# Just a heading\n\ndescription: no\n", "plugins/a/SKILL.md")
    assert str(error.value) == (
        "plugins/a/SKILL.md: no YAML frontmatter (the file must start with '---')"
    )


def test_unclosed_frontmatter() -> None:
    with pytest.raises(InputError) as error:
        read_description("---\ndescription: Use for login.\n# Body\n", "S")
    assert str(error.value) == "S: the YAML frontmatter is not closed by a '---' line"


def test_invalid_yaml() -> None:
    """The message names the file's line (2: the first line below the opening '---'): a
    frontmatter Claude Code's second try cannot read either."""
    with pytest.raises(InputError) as error:
        read_description(skill('description: "unclosed'), "S")
    assert str(error.value) == (
        "S:2: the frontmatter is not valid YAML (while scanning a quoted scalar)"
    )


def test_an_unquoted_indicator_is_read_as_claude_code_reads_it_and_said() -> None:
    """Claude Code quotes a plain value holding ': ' or an indicator and parses again; the
    document keeps the strict parser's error for lint."""
    document = split_document(
        skill("name: tw\ndescription: Use when: the user logs in, or [x] {y} #z"), "S"
    )
    assert document.description == "Use when: the user logs in, or [x] {y} #z"
    assert document.lenient == (
        "S:3: the frontmatter is not valid YAML (mapping values are not allowed here)"
    )
    assert split_document(skill("description: Use for login."), "S").lenient is None


def test_claude_codes_second_try_quotes_only_plain_top_level_values() -> None:
    text = (
        'a: "already: quoted"\nb: [one, two]\nc: [not: a list\n'
        'd: say "hi": now\n  nested: x: y\n\tkey: v'
    )
    assert quoted_as_claude_code(text) == (
        'a: "already: quoted"\nb: [one, two]\nc: "[not: a list"\n'
        'd: "say \\"hi\\": now"\n  nested: x: y\n  key: v'
    )


def test_no_description() -> None:
    with pytest.raises(InputError) as error:
        read_description(skill("name: auth0"), "S")
    assert str(error.value) == "S: the frontmatter has no 'description'"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("null", "S: the frontmatter has no 'description'"),
        ("''", "S: the description is empty"),
        ("'   '", "S: the description is empty"),
    ],
)
def test_blank_description(value: str, message: str) -> None:
    with pytest.raises(InputError) as error:
        read_description(skill(f"description: {value}"), "S")
    assert str(error.value) == message


def test_no_description_key() -> None:
    with pytest.raises(InputError) as error:
        read_description(skill("name: s"), "S")
    assert str(error.value) == "S: the frontmatter has no 'description'"


@pytest.mark.parametrize(
    ("value", "kind"), [("42", "int"), ("true", "bool"), ("[a, b]", "list"), ("{a: b}", "dict")]
)
def test_non_string_description(value: str, kind: str) -> None:
    with pytest.raises(InputError) as error:
        read_description(skill(f"description: {value}"), "S")
    assert str(error.value) == f"S: the frontmatter's 'description' is not text (a YAML {kind})"


def test_frontmatter_that_is_a_list() -> None:
    with pytest.raises(InputError) as error:
        read_description(skill("- description", "- name"), "S")
    assert str(error.value) == "S: the frontmatter is not a YAML mapping"


def test_empty_frontmatter() -> None:
    with pytest.raises(InputError) as error:
        read_description("---\n---\nbody\n", "S")
    assert str(error.value) == "S: the frontmatter is not a YAML mapping"


def test_name_that_is_not_a_string() -> None:
    assert split_document(skill("name: 7", "description: d"), "S").name is None


# Descriptions for the round trip. Excluded, and why:
# - "\r": once a file's LF line endings are converted to CRLF, a bare CR in the text is itself
#   a line ending, so a description containing one has no single meaning in a CRLF file (YAML
#   also normalises every CR to LF on load). safe_dump escapes CR today, but the test must not
#   rest on an emitter detail.
# - "\x85" (NEL): with allow_unicode=True, PyYAML writes it raw inside a quoted scalar and then
#   reads it back as a line break (a PyYAML round-trip bug, not ours).
# - surrogates ("Cs"): not encodable as UTF-8, so no file can hold them.
# - other control characters ("Cc" apart from "\n" and "\t"): YAML forbids them in a document;
#   the description is printable text.
DESCRIPTION_CHARS = st.characters(
    exclude_categories=("Cs", "Cc"),
    include_characters="\n\t:#'\" ",
    exclude_characters="\r\x85",
)


@given(
    description=st.text(DESCRIPTION_CHARS, min_size=1, max_size=300).filter(str.strip),
    newline=st.sampled_from(["\n", "\r\n"]),
    bom=st.booleans(),
    allow_unicode=st.booleans(),
)
@example(description=" Use when: #1 'it's' \"x\" ", newline="\r\n", bom=True, allow_unicode=True)
@example(description="line one\n\nline two\n", newline="\r\n", bom=False, allow_unicode=False)
@example(description="---\n...\n---", newline="\n", bom=False, allow_unicode=True)
@example(description="a\u2028b\u2029c\ufeff", newline="\r\n", bom=True, allow_unicode=True)
def test_safe_dumped_description_reads_back(
    description: str, newline: str, bom: bool, allow_unicode: bool
) -> None:
    frontmatter = yaml.safe_dump(
        {"name": "some-skill", "description": description}, allow_unicode=allow_unicode
    )
    text = "---\n" + frontmatter + "---\n# Body\n"
    text = ("\ufeff" if bom else "") + text.replace("\n", newline)
    assert read_description(text, "S") == description.strip()


RULE = "is not lowercase letters, digits and single hyphens"


@pytest.mark.parametrize(
    ("name", "folder", "problems"),
    [
        ("pdf-forms", "pdf-forms", []),
        ("pdf2", None, []),
        (None, "x", []),
        ("Not_Valid Name", "d", [f"the name 'Not_Valid Name' {RULE}"]),
        ("-lead", "-lead", [f"the name '-lead' {RULE}"]),
        ("two--dashes", "two--dashes", [f"the name 'two--dashes' {RULE}"]),
        ("trail-", "trail-", [f"the name 'trail-' {RULE}"]),
        ("pdf", "pdf-tools", ["the name 'pdf' is not its folder's name 'pdf-tools'"]),
        ("a" * 65, "a" * 65, ["the name is 65 characters, over 64"]),
        ("a" * 64, "a" * 64, []),
    ],
)
def test_a_name_is_checked_by_the_agent_skills_rule(
    name: str | None, folder: str | None, problems: list[str]
) -> None:
    assert name_problems(name, folder) == problems
