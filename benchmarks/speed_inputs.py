"""Deterministic benchmark inputs built from the visible faithfulness sets (no spaCy here)."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from .speed_common import faithfulness_path, read_jsonl, simple_sentences, words

#: Section 1/2 workload: the first ``n`` records of each of these sets.
WORKLOAD_SETS = ("summeval", "qags_cnndm", "xsumfaith", "frank_xsum", "q2", "begin_dev")
#: Section 5/7 agreement sample: ``n`` records of each, evenly spaced through the file.
SAMPLE_SETS = (
    "summeval",
    "qags_cnndm",
    "qags_xsum",
    "xsumfaith",
    "frank_xsum",
    "q2",
    "begin_dev",
    "begin_test",
)


def _record(rec: dict, name: str) -> dict[str, Any]:
    return {
        "id": rec.get("id"),
        "set": name,
        "response": rec["response"],
        "context": rec["context"],
    }


def workload_records(data_dir: Path, per_set: int) -> list[dict[str, Any]]:
    """The first ``per_set`` records of each of :data:`WORKLOAD_SETS`, in that order."""
    out = []
    for name in WORKLOAD_SETS:
        out.extend(_record(r, name) for r in read_jsonl(faithfulness_path(data_dir, name), per_set))
    return out


def spaced_sample(data_dir: Path, per_set: int) -> list[dict[str, Any]]:
    """``per_set`` records of each of :data:`SAMPLE_SETS` at evenly spaced line numbers."""
    out = []
    for name in SAMPLE_SETS:
        recs = read_jsonl(faithfulness_path(data_dir, name))
        step = len(recs) / per_set
        out.extend(_record(recs[int(k * step)], name) for k in range(per_set) if recs)
    return out


def _articles(data_dir: Path) -> list[dict[str, Any]]:
    """Distinct CNN/DM articles (qags_cnndm, then summeval) with their system summaries."""
    seen: dict[str, dict[str, Any]] = {}
    for name in ("qags_cnndm", "summeval"):
        for rec in read_jsonl(faithfulness_path(data_dir, name)):
            doc = " ".join(rec["context"])
            key = doc[:200]
            entry = seen.setdefault(key, {"text": doc, "summaries": [], "set": name})
            entry["summaries"].append(rec["response"])
    return list(seen.values())


def _good(sentence: str) -> bool:
    """A plain declarative sentence of 8-35 words (no question, no quote marks, no list)."""
    n = words(sentence)
    return (
        8 <= n <= 35
        and sentence.endswith(".")
        and not re.search(r"[?\"'`\u201c\u201d:;|]", sentence)
        and sentence[:1].isalpha()
    )


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _alter_number(sentence: str, shift: int) -> str | None:
    m = re.search(r"\b\d+\b", sentence)
    if m:
        n = int(m.group(0))
        return sentence[: m.start()] + str(n + shift) + sentence[m.end() :]
    for verb in (" was ", " is ", " has ", " will "):
        if verb in sentence:
            return sentence.replace(verb, verb + "not ", 1)
    return None


def _passages(sentences: list[str], target: int = 150, lo: int = 120, hi: int = 190) -> list[str]:
    """Consecutive sentence windows of about ``target`` words."""
    out, cur, n = [], [], 0
    for s in sentences:
        w = words(s)
        if w > hi:
            continue
        cur.append(s)
        n += w
        if n >= target:
            if lo <= n <= hi:
                out.append(" ".join(cur))
            cur, n = [], 0
    return out


def guardrail_requests(data_dir: Path, n: int) -> list[dict[str, Any]]:
    """``n`` RAG-guardrail requests: 3 passages of ~150 words and a 5-sentence answer.

    Request ``i`` takes two passages of article ``a`` and, as retrieval noise, one of the
    next article. The answer (fixed order) is: a sentence of passage 1 (supported), the
    first sentence of a system summary of the article (often supported), a sentence of
    passage 2 (supported), a sentence of passage 1 or 2 with a number changed or a "not"
    inserted (contradicted), and a sentence of an unrelated article (unsupported).
    """
    arts = _articles(data_dir)
    prepared = []
    for a in arts:
        sents = simple_sentences(a["text"])
        passages = _passages(sents)
        if len(passages) >= 2:
            prepared.append((a, passages))
    if not prepared:
        raise SystemExit(f"no usable articles under {data_dir}")
    requests = []
    i = 0
    while len(requests) < n:
        a, ps = prepared[i % len(prepared)]
        rot = i // len(prepared)  # reuse articles with other passages if n is large
        p1, p2 = ps[rot % len(ps)], ps[(rot + 1) % len(ps)]
        noise = prepared[(i + 1) % len(prepared)][1][0]
        far = prepared[(i + len(prepared) // 2) % len(prepared)][1]
        s1 = [s for s in simple_sentences(p1) if _good(s)]
        s2 = [s for s in simple_sentences(p2) if _good(s)]
        summ = [
            _cap(s)
            for summary in a["summaries"]
            for s in simple_sentences(summary.strip(" `'"))
            if _good(_cap(s))
        ]
        unrelated = [s for p in far for s in simple_sentences(p) if _good(s)]
        i += 1
        if len(s1) < 2 or not s2 or not summ or not unrelated:
            continue
        altered = None
        for s in s1[1:] + s2:
            altered = _alter_number(s, 3 + i % 5)
            if altered:
                break
        if not altered:
            continue
        answer = [s1[0], summ[0], s2[len(s2) // 2], altered, unrelated[len(unrelated) // 2]]
        requests.append({"response": " ".join(_cap(s) for s in answer), "context": [p1, p2, noise]})
    return requests


def long_context(data_dir: Path, tokens: int, count_tokens) -> dict[str, Any]:
    """Several whole CNN/DM articles joined until ``tokens`` tokens, and a 5-claim answer
    (sentences of the first, middle and last articles, one with a changed number, one
    first sentence of a system summary)."""
    arts = _articles(data_dir)
    docs, total = [], 0
    for a in arts:
        if total >= tokens:
            break
        n = count_tokens([a["text"]])[0]
        docs.append(a)
        total += n
    first = [s for s in simple_sentences(docs[0]["text"]) if _good(s)]
    mid = [s for s in simple_sentences(docs[len(docs) // 2]["text"]) if _good(s)]
    last = [s for s in simple_sentences(docs[-1]["text"]) if _good(s)]
    summ = [
        _cap(s)
        for d in docs[1:]
        for summary in d["summaries"]
        for s in simple_sentences(summary.strip(" `'"))
        if _good(_cap(s))
    ]
    altered = next((x for s in mid[1:] if (x := _alter_number(s, 4))), mid[-1])
    answer = [first[len(first) // 2], summ[0], mid[0], altered, last[len(last) // 2]]
    return {
        "context": [d["text"] for d in docs],
        "response": " ".join(_cap(s) for s in answer),
        "n_docs": len(docs),
        "context_tokens": total,
    }


# -- LLM-like answers for the claim-splitting throughput ---------------------------------

_OPENERS = (
    "Great question! ",
    "Sure! ",
    "Based on the provided context, ",
    "According to the documents, ",
    "",
    "",
    "",
)
_CLOSERS = (
    "Let me know if you have any other questions.",
    "I hope this helps!",
    "Would you like more details?",
    "",
    "",
)
_LEADS = ("Here are the key points:", "In summary:", "The main facts are:")
_HEADINGS = ("## Summary", "### Key facts", "**Overview**", "## Details")


def llm_answers(data_dir: Path, n: int, seed: int = 0) -> list[str]:
    """``n`` Markdown-flavoured answers (paragraphs, bullets, numbered lists, headings,
    citations, bold, pleasantries) whose sentences come from the sets' responses."""
    pool: list[str] = []
    for name in ("summeval", "qags_cnndm", "xsumfaith", "begin_dev", "q2"):
        for rec in read_jsonl(faithfulness_path(data_dir, name), 400):
            pool.extend(
                _cap(s)
                for s in simple_sentences(rec["response"].strip(" `'"))
                if 4 <= words(s) <= 40
            )
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        k = rng.randint(3, 9)
        sents = [rng.choice(pool) for _ in range(k)]
        sents = [s if s[-1] in ".!?" else s + "." for s in sents]
        if rng.random() < 0.4:
            sents = [
                s[:-1] + f" [{rng.randint(1, 5)}]." if rng.random() < 0.5 else s for s in sents
            ]
        style = rng.random()
        opener, closer = rng.choice(_OPENERS), rng.choice(_CLOSERS)
        if style < 0.45:  # one or two paragraphs
            first = opener + (
                sents[0][0].lower() + sents[0][1:] if opener.endswith(", ") else sents[0]
            )
            body = [first, *sents[1:]]
            cut = rng.randint(1, len(body))
            text = " ".join(body[:cut]) + ("\n\n" + " ".join(body[cut:]) if body[cut:] else "")
        elif style < 0.75:  # bullets, with bold lead words sometimes
            items = []
            for s in sents[1:]:
                if rng.random() < 0.3:
                    w = s.split(" ", 2)
                    s = f"**{w[0]} {w[1]}** {w[2]}" if len(w) == 3 else s
                items.append("- " + s)
            text = opener.strip() + ("\n\n" if opener.strip() else "")
            text += sents[0] + " " + rng.choice(_LEADS) + "\n\n" + "\n".join(items)
        else:  # heading + numbered list
            text = rng.choice(_HEADINGS) + "\n\n" + sents[0] + "\n\n"
            text += "\n".join(f"{j}. {s}" for j, s in enumerate(sents[1:], 1))
        if closer:
            text += "\n\n" + closer
        out.append(text)
    return out
