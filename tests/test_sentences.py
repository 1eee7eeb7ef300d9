from __future__ import annotations

import subprocess
import sys

import pytest

from nli_faith.text.line_structure import line_kind
from nli_faith.text.sentences import sentence_spans, sentence_spans_many


def sents(text: str) -> list[str]:
    return [text[s:e] for s, e in sentence_spans(text)]


def assert_well_formed(text: str) -> None:
    """Spans are sorted, disjoint, trimmed and cover every non-whitespace character."""
    spans = sentence_spans(text)
    covered = [False] * len(text)
    last_end = 0
    for s, e in spans:
        assert last_end <= s < e <= len(text)
        assert not text[s].isspace() and not text[e - 1].isspace()
        for i in range(s, e):
            covered[i] = True
        last_end = e
    missing = [c for c, cov in zip(text, covered, strict=True) if not cov and not c.isspace()]
    assert missing == []


@pytest.mark.parametrize("text", ["", " ", "   \n\t \n\n  "])
def test_empty_and_whitespace_only(text: str) -> None:
    assert sentence_spans(text) == []


def test_plain_sentences_and_spans_point_into_text() -> None:
    text = "  The warranty lasts two years.  It covers water damage!\nIs that all?  "
    assert sentence_spans(text) == [(2, 31), (33, 56), (57, 69)]
    assert sents(text) == [
        "The warranty lasts two years.",
        "It covers water damage!",
        "Is that all?",
    ]


def test_decimals_currency_and_versions_are_not_split() -> None:
    text = (
        "Revenue rose 3.5% to $1,200.50 per unit in 2023. "
        "Version v2.0 replaced v1.9.3 last May. Pi is about 3.14159."
    )
    assert sents(text) == [
        "Revenue rose 3.5% to $1,200.50 per unit in 2023.",
        "Version v2.0 replaced v1.9.3 last May.",
        "Pi is about 3.14159.",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Bring a few tools, e.g. a hammer and nails.",
        "The plan is cheaper, i.e. it costs less per month.",
        "The U.S. economy grew by 2% last quarter.",
        "Dr. Smith founded the clinic in 1998.",
        "Mr. Jones and Mrs. Patel signed the contract.",
        "Apples, pears, etc. are sold at the market.",
        "The final was Spain vs. Italy in Berlin.",
        "Acme Inc. employs 500 people worldwide.",
        "See No. 5 in the catalogue for the price.",
        "The box weighs approx. 20 kg when full.",
        "Prof. Lee reviewed the results in Fig. 3 carefully.",
    ],
)
def test_abbreviations_do_not_end_sentences(text: str) -> None:
    following = "The next sentence starts here."
    assert sents(f"{text} {following}") == [text, following]


def test_abbreviation_before_capital_can_end_a_sentence() -> None:
    text = "We sell apples, pears, etc. The shop opens at nine."
    assert sents(text) == ["We sell apples, pears, etc.", "The shop opens at nine."]


def test_citation_markers_stay_with_the_preceding_sentence() -> None:
    text = (
        "The warranty lasts two years.[1] It covers water damage.[1][2] "
        "Returns are free [3]. Shipping takes five days. [4] Refunds take a week.[5]"
    )
    assert sents(text) == [
        "The warranty lasts two years.[1]",
        "It covers water damage.[1][2]",
        "Returns are free [3].",
        "Shipping takes five days. [4]",
        "Refunds take a week.[5]",
    ]


def test_citation_after_bold_sentence() -> None:
    text = "- **The warranty lasts two years.** [1]\n- It covers water damage."
    assert sents(text) == ["- **The warranty lasts two years.** [1]", "- It covers water damage."]


def test_markdown_list_items_are_separate_sentences() -> None:
    text = (
        "Key features:\n"
        "- Water resistant to 50 meters\n"
        "* Battery lasts ten hours\n"
        "+ Ships with a charger\n"
        "1. Two-year warranty\n"
        "2) Free returns within 30 days"
    )
    assert sents(text) == [
        "Key features:",
        "- Water resistant to 50 meters",
        "* Battery lasts ten hours",
        "+ Ships with a charger",
        "1. Two-year warranty",
        "2) Free returns within 30 days",
    ]


def test_numbered_item_with_several_sentences_keeps_its_number() -> None:
    text = "1. Open the box. Remove the cover.\n2. Plug it in."
    assert sents(text) == ["1. Open the box.", "Remove the cover.", "2. Plug it in."]


def test_inline_enumeration() -> None:
    text = "The steps are: 1. Open the box. 2. Remove the cover."
    assert sents(text) == ["The steps are:", "1. Open the box.", "2. Remove the cover."]


def test_headings_and_paragraphs() -> None:
    text = (
        "# Warranty\n"
        "The warranty lasts two years\n\n"
        "## Returns ##\n"
        "**Shipping**\n"
        "Returns are free. Refunds take a week\n"
        "\n"
        "Contact support for help"
    )
    assert sents(text) == [
        "# Warranty",
        "The warranty lasts two years",
        "## Returns ##",
        "**Shipping**",
        "Returns are free.",
        "Refunds take a week",
        "Contact support for help",
    ]


def test_wrapped_lines_are_joined_but_labels_are_not() -> None:
    wrapped = (
        "The warranty covers every part of the device for the first two full\n"
        "Years after purchase, including the battery.\n"
        "Short label\n"
        "The next paragraph starts here,\n"
        "and it continues on this line."
    )
    assert sents(wrapped) == [
        "The warranty covers every part of the device for the first two full\n"
        "Years after purchase, including the battery.",
        "Short label",
        "The next paragraph starts here,\nand it continues on this line.",
    ]


def test_windows_line_endings() -> None:
    text = "Intro line.\r\n\r\n- item one\r\n- item two\r\n**Bold heading**\r\nText after."
    assert sents(text) == [
        "Intro line.",
        "- item one",
        "- item two",
        "**Bold heading**",
        "Text after.",
    ]


def test_code_spans_and_fenced_code_are_not_split() -> None:
    text = (
        "Call `os.path.join(a, b). Then` to build paths. It works.\n"
        "```python\n"
        "x = 1. y = 2\n"
        "print(x)\n"
        "```\n"
        "After the code. More text."
    )
    assert sents(text) == [
        "Call `os.path.join(a, b). Then` to build paths.",
        "It works.",
        "```python\nx = 1. y = 2\nprint(x)\n```",
        "After the code.",
        "More text.",
    ]


def test_unterminated_fence_runs_to_the_end() -> None:
    text = "Run this:\n```\nmake all. make test.\nmake install"
    assert sents(text) == ["Run this:", "```\nmake all. make test.\nmake install"]


def test_brackets_and_quotes_go_with_their_sentence() -> None:
    text = 'He said "Stop." Then he left. (See the report.) "It is late," she said.'
    assert sents(text) == [
        'He said "Stop."',
        "Then he left.",
        "(See the report.)",
        '"It is late," she said.',
    ]


def test_bold_start_of_next_sentence() -> None:
    text = "The plan is cheap. **It costs $5** per month."
    assert sents(text) == ["The plan is cheap.", "**It costs $5** per month."]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("今天天气很好。我们去公园吧。", ["今天天气很好。", "我们去公园吧。"]),
        ("你好！你是谁？我是学生。", ["你好！", "你是谁？", "我是学生。"]),
        (
            "Das Gerät kostet 3,50 €. Es ist wasserdicht, z.B. bis 50 m.",
            ["Das Gerät kostet 3,50 €.", "Es ist wasserdicht, z.B. bis 50 m."],
        ),
        (
            "Прибор весит 1,2 кг. Он водонепроницаем! Правда?",
            ["Прибор весит 1,2 кг.", "Он водонепроницаем!", "Правда?"],
        ),
    ],
)
def test_non_english_text(text: str, expected: list[str]) -> None:
    assert sents(text) == expected


MESSY = [
    "Sure! Here's the answer:\n\n## Summary\n\n1. **Price:** $1,200.50 [1]\n2. *Fast*\n\n"
    "```js\nconst a = 1.5;\n```\n> Quoted. Text.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n---\nBye!",
    "No terminal punctuation at all",
    "...!!! ??? [1] [2]",
    "`unterminated code span. Next.",
    "- \n- \n1.\n#\n**\n",
    "Emoji 🎉 sentence. Another one 🚀! 3.5% ok.\u3000全角スペース。次の文。",
    "Tabs\tand\u00a0non-breaking spaces. New\u2028line separator. End.",
    "a.b.c. d.e.f. G.H.I. (((( )))) [[[ ]]]",
]


@pytest.mark.parametrize("text", MESSY)
def test_every_character_is_covered(text: str) -> None:
    assert_well_formed(text)


def test_many_matches_single() -> None:
    texts = [*MESSY, "", "   ", "One. Two."]
    assert sentence_spans_many(texts, batch_size=3) == [sentence_spans(t) for t in texts]
    assert sentence_spans_many([]) == []


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("", "blank"),
        ("```python", "fence"),
        ("### Setup", "heading"),
        ("**Notes:**", "heading"),
        ("---", "rule"),
        ("- item", "list"),
        ("12) item", "list"),
        ("| a | b |", "table"),
        ("> quoted", "quote"),
        ("1.5 million people live here.", "text"),
        ("#hashtag is not a heading", "text"),
    ],
)
def test_line_kind(line: str, kind: str) -> None:
    assert line_kind(line) == kind


def test_import_does_not_load_spacy() -> None:
    code = (
        "import sys, nli_faith\n"
        "before = set(sys.modules)\n"
        "import nli_faith.text.sentences, nli_faith.text.claims\n"
        "print(sorted(m for m in set(sys.modules) - before if m.split('.')[0] == 'spacy'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_one_item_per_line_web_text_ends_a_sentence_at_every_line() -> None:
    lines = [
        "Our products",
        "Cloud storage for teams of every size across the whole world today",
        "Backup and restore for laptops, phones and servers in a single place",
        "Pricing starts at five dollars a month for each member of the team",
        "Contact us",
    ]
    assert sents("\n".join(lines)) == lines


def test_a_hard_wrapped_paragraph_stays_joined_even_before_a_capital() -> None:
    text = (
        "The committee agreed that the budget for the next two years should be\n"
        "raised, and it asked the board of the company to approve the new plan\n"
        "Before the end of the year the board will meet again to vote on it."
    )
    assert sents(text) == [text]


def test_a_line_ending_open_continues_into_the_next() -> None:
    text = "Refunds are paid to the\nCard used for the purchase.\nShipping is free"
    assert sents(text) == [
        "Refunds are paid to the\nCard used for the purchase.",
        "Shipping is free",
    ]
