"""Writing a new description changes the description's value and not one other character."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from activation._errors import InputError
from activation.inputs.description_edit import replace_description
from activation.inputs.frontmatter import split_document
from tests.support.tiers import examples

NEW = "Use when refunding a charge or answering a chargeback."


def skill(*frontmatter: str, body: str = "# Refunds\n\nSteps.\n") -> str:
    return "\n".join(["---", *frontmatter, "---"]) + "\n" + body


def test_plain() -> None:
    text = skill("name: refunds", "description: Use for refunds.", "license: MIT")
    assert replace_description(text, NEW, "S") == skill(
        "name: refunds", f"description: {NEW}", "license: MIT"
    )


def test_multi_line_plain_becomes_one_plain_line() -> None:
    text = skill("description: Use for refunds", "  and for chargebacks.", "license: MIT")
    assert replace_description(text, NEW, "S") == skill(f"description: {NEW}", "license: MIT")


def test_single_quoted() -> None:
    text = skill("description: 'Use for refunds.'", "license: MIT")
    assert replace_description(text, "It's: for #refunds", "S") == skill(
        "description: 'It''s: for #refunds'", "license: MIT"
    )


def test_double_quoted() -> None:
    text = skill('description: "Use for refunds."', "license: MIT")
    assert replace_description(text, 'Say "refund"\\now', "S") == skill(
        'description: "Say \\"refund\\"\\\\now"', "license: MIT"
    )


@pytest.mark.parametrize("header", ["|", "|-", "|+", "|2", "|  # what the agent reads"])
def test_literal_keeps_its_header_and_indentation(header: str) -> None:
    text = skill("name: refunds", f"description: {header}", "  Use for refunds", "  and more.", "",
                 "license: MIT")  # fmt: skip
    assert replace_description(text, "First line\nsecond: line #2", "S") == skill(
        "name: refunds", f"description: {header}", "  First line", "  second: line #2", "",
        "license: MIT",
    )  # fmt: skip


def test_literal_with_deeper_indentation() -> None:
    text = skill("description: |-", "    Use for refunds.", "license: MIT")
    assert replace_description(text, NEW, "S") == skill(
        "description: |-", f"    {NEW}", "license: MIT"
    )


@pytest.mark.parametrize("header", [">", ">-"])
def test_folded_writes_a_line_per_paragraph(header: str) -> None:
    text = skill(f"description: {header}", "  Use for", "  refunds.", "# a comment", "license: MIT")
    assert replace_description(text, NEW, "S") == skill(
        f"description: {header}", f"  {NEW}", "# a comment", "license: MIT"
    )
    two = replace_description(text, "One.\nTwo.", "S")
    assert two == skill(
        f"description: {header}", "  One.", "", "  Two.", "# a comment", "license: MIT"
    )
    value = split_document(two, "S").frontmatter["description"]
    assert value == ("One.\nTwo.\n" if header == ">" else "One.\nTwo.")


def test_crlf_is_kept() -> None:
    text = skill("name: refunds", "description: >-", "  Use for", "  refunds.", "license: MIT")
    crlf = text.replace("\n", "\r\n")
    assert replace_description(crlf, "One.\nTwo.", "S") == skill(
        "name: refunds", "description: >-", "  One.", "", "  Two.", "license: MIT"
    ).replace("\n", "\r\n")
    plain = skill("description: Use for refunds.", "license: MIT").replace("\n", "\r\n")
    assert replace_description(plain, NEW, "S") == skill(
        f"description: {NEW}", "license: MIT"
    ).replace("\n", "\r\n")


def test_bom_is_kept() -> None:
    text = "\ufeff" + skill("description: 'Use for refunds.'")
    assert replace_description(text, NEW, "S") == "\ufeff" + skill(f"description: '{NEW}'")


def test_comments_are_kept() -> None:
    text = skill(
        "# the skill's card",
        "name: refunds  # the folder's name",
        "description: Use for refunds.   # measured by activation",
        "# end",
    )
    assert replace_description(text, NEW, "S") == skill(
        "# the skill's card",
        "name: refunds  # the folder's name",
        f"description: {NEW}   # measured by activation",
        "# end",
    )


def test_when_to_use_and_a_description_that_is_not_first_are_kept() -> None:
    text = skill(
        "name: refunds",
        "when_to_use: |",
        "  When a refund is due.",
        "description: Use for refunds.",
        "allowed-tools: [Read, Grep]",
    )
    result = replace_description(text, NEW, "S")
    assert result == skill(
        "name: refunds",
        "when_to_use: |",
        "  When a refund is due.",
        f"description: {NEW}",
        "allowed-tools: [Read, Grep]",
    )
    assert split_document(result, "S").when_to_use == "When a refund is due.\n"


def test_the_body_is_kept_byte_for_byte() -> None:
    body = "description: not this one\n---\n\n  trailing spaces  \n"
    text = skill("description: Use for refunds.", body=body)
    assert replace_description(text, NEW, "S") == skill(f"description: {NEW}", body=body)


@pytest.mark.parametrize(
    ("new", "written"),
    [
        ("Use when: a refund is due", '"Use when: a refund is due"'),
        ("Refunds #and chargebacks", '"Refunds #and chargebacks"'),
        ("- a list?", '"- a list?"'),
        ("'quoted' first", "\"'quoted' first\""),
        ("true", '"true"'),
        ("1024", '"1024"'),
        (" leading space", '" leading space"'),
        ("Two\nlines", '"Two\\nlines"'),
        ("a\u2028b\x85c\x07", '"a\\u2028b\\x85c\\x07"'),
    ],
)
def test_plain_falls_back_to_double_quotes(new: str, written: str) -> None:
    text = skill("description: Use for refunds.  # kept", "license: MIT")
    result = replace_description(text, new, "S")
    assert result == skill(f"description: {written}  # kept", "license: MIT")
    assert split_document(result, "S").frontmatter["description"] == new


def test_single_quotes_fall_back_for_a_line_break() -> None:
    text = skill("description: 'Use for refunds.'")
    assert replace_description(text, "Two\nlines", "S") == skill('description: "Two\\nlines"')


@pytest.mark.parametrize("new", [" indented first", "ends with a break\n", "a\rb"])
def test_a_block_falls_back_and_keeps_its_comment_and_spacing(new: str) -> None:
    text = skill("description: |  # note", "  Use for refunds.", "", "license: MIT")
    result = replace_description(text, new, "S")
    written = split_document(result, "S").frontmatter["description"]
    assert written == new
    quoted = result.split("description: ", 1)[1].split("  # note", 1)[0]
    assert result == skill(f"description: {quoted}  # note", "", "license: MIT")
    assert quoted.startswith('"')


def test_a_blank_description_is_refused() -> None:
    with pytest.raises(InputError, match=r"^S: the new description is empty$"):
        replace_description(skill("description: Use for refunds."), " \n ", "S")


def test_a_result_that_does_not_read_back_is_refused() -> None:
    """The value carries an anchor another key refers to: replacing it changes that key."""
    text = skill("description: &d Use for refunds.", "summary: *d")
    with pytest.raises(InputError) as raised:
        replace_description(text, NEW, "S")
    assert str(raised.value) == "S: the new description could not be written into the frontmatter"


def test_a_file_without_a_description_is_refused() -> None:
    with pytest.raises(InputError, match=r"^S: the frontmatter has no 'description'$"):
        replace_description(skill("name: refunds"), NEW, "S")


STYLES: dict[str, tuple[list[str], list[str], str]] = {
    # style: (its lines, the lines with NEW written in, what the value adds to the text)
    "plain": (["description: Use for refunds."], [f"description: {NEW}"], ""),
    "multi-line plain": (["description: Use for", "  refunds."], [f"description: {NEW}"], ""),
    "single-quoted": (["description: 'Use for refunds.'"], [f"description: '{NEW}'"], ""),
    "double-quoted": (['description: "Use for refunds."'], [f'description: "{NEW}"'], ""),
    "literal": (["description: |", "  Use for", "  refunds."], ["description: |", f"  {NEW}"],
                "\n"),
    "literal strip": (["description: |-", "  Use for refunds."], ["description: |-", f"  {NEW}"],
                      ""),
    "literal keep": (["description: |+", "  Use for refunds.", ""],
                     ["description: |+", f"  {NEW}", ""], "\n\n"),
    "literal indented": (["description: |2", "  Use for refunds."],
                         ["description: |2", f"  {NEW}"], "\n"),
    "folded": (["description: >", "  Use for", "  refunds.", ""],
               ["description: >", f"  {NEW}", ""], "\n"),
    "folded strip": (["description: >-  # note", "  Use for refunds."],
                     ["description: >-  # note", f"  {NEW}"], ""),
}  # fmt: skip
KEEP = ("when_to_use: After a charge.  # c", "license: MIT")
TEXT = st.text(st.characters(exclude_categories=["Cs"]), min_size=1).filter(str.strip)
"""Any text but lone surrogates (no file can hold them): control characters and YAML's line
breaks too, which only double quotes carry (as escapes)."""


@pytest.mark.parametrize("style", list(STYLES))
def test_ordinary_text_keeps_the_style(style: str) -> None:
    lines, written, suffix = STYLES[style]
    text = skill("name: refunds", *lines, *KEEP)
    result = replace_description(text, NEW, "S")
    assert result == skill("name: refunds", *written, *KEEP)
    assert split_document(result, "S").frontmatter["description"] == NEW + suffix


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("style", list(STYLES))
def test_any_text_round_trips(style: str, newline: str) -> None:
    """In the style, or in double quotes when the style cannot carry the text; every other
    key, every other character of the file and the body as they were."""
    lines, _, suffix = STYLES[style]
    text = skill("name: refunds", *lines, *KEEP).replace("\n", newline)
    before = split_document(text, "S")
    rest = {k: v for k, v in before.frontmatter.items() if k != "description"}
    tail = newline.join(["", *KEEP, "---", "# Refunds", "", "Steps.", ""])

    @examples(150)
    @given(TEXT)
    def check(new: str) -> None:
        result = replace_description(text, new, "S")
        after = split_document(result, "S")
        assert after.frontmatter["description"] in (new, new + suffix)
        assert list(after.frontmatter) == list(before.frontmatter)
        assert {k: v for k, v in after.frontmatter.items() if k != "description"} == rest
        assert result.startswith(f"---{newline}name: refunds{newline}description: ")
        assert result.endswith(tail)

    check()


SENTENCE = st.from_regex(r"[A-Za-z][A-Za-z0-9 ,.;()#:'\"-]{0,80}[A-Za-z.]", fullmatch=True)


@pytest.mark.parametrize(
    "style", [name for name in STYLES if "literal" in name or "folded" in name]
)
@examples(100)
@given(new=SENTENCE)
def test_a_sentence_stays_in_its_block(style: str, new: str) -> None:
    lines, written, _ = STYLES[style]
    text = skill("name: refunds", *lines, *KEEP)
    result = replace_description(text, new, "S")
    assert result.split("\n")[2:4] == [written[0], f"  {new}"]


@examples(100)
@given(new=TEXT.filter(lambda text: all(c.isprintable() or c == "\t" for c in text)))
def test_one_line_of_printable_text_stays_single_quoted(new: str) -> None:
    text = skill("description: 'Use for refunds.'", *KEEP)
    result = replace_description(text, new, "S")
    assert result.split("\n")[1] == "description: '" + new.replace("'", "''") + "'"
    assert split_document(result, "S").frontmatter["description"] == new
