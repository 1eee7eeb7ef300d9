"""The baselines nli-faith is compared with, on the same NLI model.

* **SummaC-ZS-style** (re-implemented from the published formula, Laban et al. 2022):
  an NLI matrix of every response sentence against every context sentence; per
  response sentence ``max_entail - max_contradict`` over the context sentences;
  the score is the mean over response sentences.
* **Single pass**: the whole response against the whole context as ONE pair, the
  context cut to fit the model's window (``truncation="only_first"``), the way a
  plain cross-encoder call silently truncates. Reported score: ``P(entail)``.
* **Token overlap**: the share of the response's word tokens (lower-cased ``\\w+``)
  found in the context's token set. No model.

Each NLI baseline is split into ``*_pairs`` (what to run through the model) and
``*_score`` (the cheap reduction), so that all methods' pairs can go through the
model in one deduplicated call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from nli_faith.nli.labels import CONTRADICT_IDX, ENTAIL_IDX
from nli_faith.text.sentences import sentence_spans

_WORD_RE = re.compile(r"\w+")

#: How the context's documents are joined into one premise for the single pass.
SINGLE_PASS_JOIN = "\n\n"


# -- token overlap ------------------------------------------------------------------


def word_tokens(text: str) -> list[str]:
    """Lower-cased ``\\w+`` tokens.

    Example:
        >>> word_tokens("It's $50, FREE!")
        ['it', 's', '50', 'free']
    """
    return _WORD_RE.findall(text.lower())


def token_overlap(response: str, context: Sequence[str]) -> float | None:
    """Share of the response's word tokens (with repeats) that occur in the context.

    ``None`` when the response has no word token.

    Example:
        >>> token_overlap("The cat sat on a mat.", ["The cat sat."])
        0.5
    """
    toks = word_tokens(response)
    if not toks:
        return None
    vocab = set(word_tokens(" ".join(context)))
    return sum(t in vocab for t in toks) / len(toks)


# -- fitting a pair into the model's window ------------------------------------------


def fit_premise(tokenizer, premise: str, hypothesis: str, max_length: int) -> tuple[str, bool]:
    """Cut ``premise`` so that ``(premise, hypothesis)`` fits ``max_length`` tokens.

    The cut is what ``tokenizer(..., truncation="only_first", max_length=max_length)``
    keeps, mapped back to text through the token offsets, so the pair can go
    through :meth:`NLIModel.predict` (and its cache) like any other. Returns the
    premise to use and whether it was cut.
    """
    if len(tokenizer(premise, hypothesis)["input_ids"]) <= max_length:
        return premise, False
    enc = tokenizer(
        premise,
        hypothesis,
        truncation="only_first",
        max_length=max_length,
        return_offsets_mapping=True,
    )
    ends = [
        end
        for (start, end), sid in zip(enc["offset_mapping"], enc.sequence_ids())
        if sid == 0 and end > start
    ]
    k = len(ends)
    cut = premise[: ends[k - 1]] if k else ""
    # a cut inside a word can re-tokenise into one more piece: drop tokens until it fits
    while k > 0 and len(tokenizer(cut, hypothesis)["input_ids"]) > max_length:
        k -= 1
        cut = premise[: ends[k - 1]] if k else ""
    return cut, True


# -- single pass -------------------------------------------------------------------------


@dataclass(frozen=True)
class SinglePass:
    """The one pair of the single-pass baseline."""

    premise: str
    hypothesis: str
    truncated: bool
    premise_chars: int  # characters of the full joined context


def single_pass_pair(nli, response: str, context: Sequence[str]) -> SinglePass:
    """The whole response against the whole (joined) context, cut to the model's window."""
    full = SINGLE_PASS_JOIN.join(context)
    premise, cut = fit_premise(nli.tokenizer, full, response, nli.max_length)
    return SinglePass(premise, response, cut, len(full))


def single_pass_scores(probs: np.ndarray) -> dict[str, float]:
    """``P(entail)`` (reported) and ``P(entail) - P(contradict)`` (kept in the JSON)."""
    p = np.asarray(probs, dtype=np.float64)
    return {
        "p_entail": float(p[ENTAIL_IDX]),
        "e_minus_c": float(p[ENTAIL_IDX] - p[CONTRADICT_IDX]),
    }


# -- SummaC-ZS ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SentenceGrid:
    """Response sentences x context sentences, and the (premise, hypothesis) pair of each cell."""

    response_sentences: list[str]
    context_sentences: list[str]
    pairs: list[tuple[str, str]]  # row-major: response sentence i, context sentence j


def sentences(text: str) -> list[str]:
    return [text[s:e] for s, e in sentence_spans(text)]


def summac_grid(nli, response: str, context: Sequence[str]) -> SentenceGrid:
    """The sentence-level pairs of SummaC-ZS (each cell cut to fit the window if needed)."""
    hyps = sentences(response)
    prems = [s for doc in context for s in sentences(doc)]
    pairs: list[tuple[str, str]] = []
    if hyps and prems:
        room = nli.max_length - nli.num_special_tokens
        h_len = nli.count_tokens(hyps)
        p_len = nli.count_tokens(prems)
        for h, hl in zip(hyps, h_len):
            for p, pl in zip(prems, p_len):
                if pl + hl > room:  # rare: one very long sentence
                    p, _ = fit_premise(nli.tokenizer, p, h, nli.max_length)
                pairs.append((p, h))
    return SentenceGrid(hyps, prems, pairs)


def summac_score(grid: SentenceGrid, probs: np.ndarray) -> float | None:
    """Mean over response sentences of ``max_j P(entail) - max_j P(contradict)``.

    ``None`` when the response or the context has no sentence.
    """
    n_h, n_p = len(grid.response_sentences), len(grid.context_sentences)
    if n_h == 0 or n_p == 0:
        return None
    m = np.asarray(probs, dtype=np.float64).reshape(n_h, n_p, -1)
    per_sentence = m[..., ENTAIL_IDX].max(axis=1) - m[..., CONTRADICT_IDX].max(axis=1)
    return float(per_sentence.mean())
