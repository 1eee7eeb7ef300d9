"""Generated RAG records that are hard to score: the fuzz inputs of issue 15.

Every function takes a :class:`random.Random`, so a record is fully determined by its
seed (``record(random.Random(seed))``) and any failure can be replayed. The property
tests pass hypothesis's own ``Random`` (``st.randoms()``), so the same generator is
shrunk and replayed by hypothesis there.

The fragments are what real answers and retrieved passages hold: prose, long run-on
sentences (no full stop for hundreds of words), Markdown lists and headings, tables,
fenced and inline code, JSON, HTML, URLs and base64 blobs longer than the model's window,
emoji, zero-width and bidi characters, combining marks, CJK, arbitrary code points, empty
and whitespace-only documents, and many documents.

Example:
    >>> import random
    >>> rec = record(random.Random(7))
    >>> sorted(rec)
    ['context', 'response']
    >>> record(random.Random(7)) == rec
    True
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

WORDS = (
    "the warranty lasts two years and covers water damage while the battery is replaced "
    "free of charge if it fails within twelve months the server retries each request "
    "three times before the client reports an error to the user Paris is the capital of "
    "France and the Eiffel Tower was completed in 1889 by Gustave Eiffel's company "
    "shipping is free for orders above fifty dollars returns are accepted within 30 days"
).split()
EMOJI = "😀🚀👍🏽🇫🇷👨‍👩‍👧‍👦❤️🔥✅🤖"
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff\u200e\u200f\u202a\u202c\u00ad"
ODD = "\u0301\u0308\u3000\u2028\u2029\x00\x07\t\r\u00a0\u2003"
CJK = "東京は日本の首都です。北京是中国的首都。서울은 한국의 수도입니다."


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def prose(rng: random.Random) -> str:
    """A few ordinary sentences."""
    return " ".join(
        words(rng, rng.randint(3, 18)).capitalize() + "." for _ in range(rng.randint(1, 4))
    )


def run_on(rng: random.Random) -> str:
    """One sentence of 150 to 900 words with no full stop, maybe with commas."""
    n = rng.randint(150, 900)
    parts = [words(rng, rng.randint(5, 40)) for _ in range(max(1, n // 20))]
    sep = rng.choice([" ", ", ", " and ", " - ", "; "])
    return sep.join(parts)


def blob(rng: random.Random) -> str:
    """A token-dense string with no space: a URL, base64, a hash chain (up to ~3,000 chars)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
    body = "".join(rng.choice(alphabet) for _ in range(rng.randint(50, 3000)))
    return rng.choice(["https://example.com/", "data:image/png;base64,", "sha256:", ""]) + body


def markdown(rng: random.Random) -> str:
    lines = [f"## {words(rng, 3).title()}"]
    for i in range(rng.randint(1, 6)):
        bullet = rng.choice(["-", "*", f"{i + 1}.", "  -", ">"])
        lines.append(f"{bullet} **{words(rng, 2)}** {words(rng, rng.randint(2, 12))} [{i + 1}]")
    lines.append(f"See [{words(rng, 2)}](https://example.com/{words(rng, 1)}).")
    return "\n".join(lines)


def table(rng: random.Random) -> str:
    cols = rng.randint(2, 5)
    rows = ["| " + " | ".join(words(rng, 1) for _ in range(cols)) + " |"]
    rows.append("|" + "---|" * cols)
    for _ in range(rng.randint(1, 8)):
        rows.append("| " + " | ".join(str(rng.randint(0, 999)) for _ in range(cols)) + " |")
    return "\n".join(rows)


def code(rng: random.Random) -> str:
    body = "\n".join(
        f"    x{i} = compute({rng.randint(0, 99)}, '{words(rng, 2)}')  # {words(rng, 3)}"
        for i in range(rng.randint(1, 30))
    )
    fence = rng.choice(["```python\n{}\n```", "```\n{}\n```", "{}", "`{}`"])
    return fence.format(body)


def json_text(rng: random.Random) -> str:
    obj = {words(rng, 1): rng.choice([rng.randint(0, 10**6), words(rng, 4), None, [1, 2]])}
    obj["nested"] = {"items": [words(rng, 2) for _ in range(rng.randint(0, 10))]}
    return json.dumps(obj, indent=rng.choice([None, 2]))


def html(rng: random.Random) -> str:
    return (
        f"<div class='a'><p>{words(rng, 8)}.</p><ul><li>{words(rng, 4)}</li>"
        f"<li>{words(rng, 4)}</li></ul><br/><script>var x = {rng.randint(0, 9)};</script></div>"
    )


def sprinkled(rng: random.Random) -> str:
    """Prose with emoji, zero-width, bidi, combining and control characters inside words."""
    text = list(prose(rng))
    for _ in range(rng.randint(1, 12)):
        text.insert(rng.randint(0, len(text)), rng.choice(EMOJI + ZERO_WIDTH + ODD))
    return "".join(text)


def unicode_soup(rng: random.Random) -> str:
    """Arbitrary code points (no surrogates), CJK and right-to-left text."""
    out = []
    for _ in range(rng.randint(1, 60)):
        r = rng.random()
        if r < 0.5:
            cp = rng.randint(0x20, 0x2FFFF)
            if 0xD800 <= cp <= 0xDFFF:
                cp = 0xFFFD
            out.append(chr(cp))
        elif r < 0.7:
            out.append(rng.choice(CJK))
        elif r < 0.85:
            out.append(rng.choice(["مرحبا بالعالم", "שלום עולם", "Привет мир", "नमस्ते"]))
        else:
            out.append(" ")
    return "".join(out)


def lone_surrogate(rng: random.Random) -> str:
    """A truncated emoji, as a JSON ``\\ud83d`` escape gives after a streamed answer is cut."""
    return prose(rng)[:-1] + rng.choice(["\ud83d", "\ude00", "\udfff"]) + "."


def blank(rng: random.Random) -> str:
    return rng.choice(["", " ", "\n\n", "\t \u00a0", "\u200b", "...", "- ", "#"])


#: (fragment maker, weight); long makers are rarer so a run stays affordable.
FRAGMENTS: tuple[tuple[Callable[[random.Random], str], int], ...] = (
    (prose, 10),
    (run_on, 2),
    (blob, 1),
    (markdown, 3),
    (table, 2),
    (code, 2),
    (json_text, 2),
    (html, 2),
    (sprinkled, 3),
    (unicode_soup, 3),
    (lone_surrogate, 1),
    (blank, 2),
)


def fragment(rng: random.Random) -> str:
    makers, weights = zip(*FRAGMENTS)
    return rng.choices(makers, weights=weights)[0](rng)


def text(rng: random.Random, *, max_fragments: int = 4) -> str:
    sep = rng.choice(["\n\n", "\n", " "])
    return sep.join(fragment(rng) for _ in range(rng.randint(1, max_fragments)))


def record(rng: random.Random) -> dict:
    """One record: a response and a context (a string, or 0 to 40 documents)."""
    r = rng.random()
    if r < 0.15:
        context: str | list[str] = text(rng)
    elif r < 0.25:
        context = [blank(rng) for _ in range(rng.randint(0, 4))]
    elif r < 0.35:
        context = [text(rng, max_fragments=1) for _ in range(rng.randint(10, 40))]
    else:
        context = [text(rng, max_fragments=2) for _ in range(rng.randint(1, 5))]
    return {"response": text(rng), "context": context}
