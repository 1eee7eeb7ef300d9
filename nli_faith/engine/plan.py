"""Stage 1, the plan: a response's claims, its context's chunks and the pairs to score.

No model runs here (the tokenizer counts tokens): a :class:`Plan` says which
(claim, chunk) pairs :mod:`~nli_faith.engine.infer` will score. Claims are cut to fit
beside a chunk in the model's window and stripped of citation markers; chunks are sized
to fit beside the longest claim; the pre-filter, the composite premises and the rules
stage decide the pair mask.
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from nli_faith.engine.failures import Failed
from nli_faith.engine.parts import Parts
from nli_faith.errors import E_LONG_CLAIMS, RecordError
from nli_faith.nli.model import Encoded
from nli_faith.records import Limits, Record, as_context, parse_record
from nli_faith.rules import rule_rows
from nli_faith.rules.numbers import number_support_mask
from nli_faith.scoring.composite import plan_composites
from nli_faith.text.chunking import Chunk, chunk_documents, sentence_members
from nli_faith.text.citations import (
    assign_citations,
    find_citations,
    named_passage,
    strip_citations,
)
from nli_faith.text.claims import Claim
from nli_faith.text.enumerations import drop_self_counts
from nli_faith.text.fit import fit_claims
from nli_faith.text.questions import claim_with_question

logger = logging.getLogger(__name__)

#: Claims longer than this share of the model's limit are cut for budgeting.
MAX_CLAIM_SHARE = 0.5


@dataclass(frozen=True)
class Plan:
    """One response's claims, the context chunks and which (claim, chunk) pairs the
    model will score."""

    claims: list[Claim]
    chunks: list[Chunk]
    mask: np.ndarray  # (claims, chunks) bool
    #: The token ids of the pairs of ``mask`` (row by row), when a planning worker
    #: encoded them (:func:`~nli_faith.engine.infer.encode_plan`); else the model's
    #: process does.
    encoded: Encoded | None = None

    @property
    def n_pairs(self) -> int:
        """Pairs to score (early exit may score fewer)."""
        return int(self.mask.sum())


@dataclass(frozen=True)
class Planned:
    """A record ready for the model: its plan and its reference answer, if any."""

    plan: Plan
    reference: str | None = None


def claim_tokens(parts: Parts) -> int:
    """The most tokens a claim may have: the rest of the window is for the chunk."""
    room = parts.nli.max_length - parts.nli.num_special_tokens
    return max(1, int(room * MAX_CLAIM_SHARE))


def budget(parts: Parts, claims: Sequence[Claim]) -> int:
    """The largest chunk, in tokens, that fits beside the longest of ``claims``."""
    room = parts.nli.max_length - parts.nli.num_special_tokens
    longest = max(parts.nli.count_tokens([c.text for c in claims]), default=0)
    fits = room - min(longest, claim_tokens(parts))
    return max(16, min(fits, parts.chunk_tokens or fits))


def token_offsets(parts: Parts, text: str) -> list[tuple[int, int]]:
    """Character offsets of ``text``'s tokens (no special tokens)."""
    # verbose=False: an over-long sentence is split by the chunker, which says so;
    # transformers' own "Token indices sequence length" warning would only confuse
    enc = parts.nli.tokenizer(
        text, add_special_tokens=False, return_offsets_mapping=True, verbose=False
    )
    return [tuple(o) for o in enc["offset_mapping"]]


def number_mask(claims: Sequence[Claim], chunks: Sequence[Chunk]) -> np.ndarray:
    """The number check; a count the claim's own list proves is not asked of the context."""
    return number_support_mask([drop_self_counts(c.text) for c in claims], [c.text for c in chunks])


def split_claims(
    parts: Parts,
    response: str,
    *,
    record: str = "the record",
    limits: Limits | None = None,
    question: str | None = None,
) -> list[Claim]:
    """The response's claims, each short enough to sit beside a chunk in the model.

    A longer claim is split at clause, comma or word boundaries (one warning naming
    ``record``); more claims than ``limits.max_claims`` (default: the scorer's limits) is
    a :class:`~nli_faith.errors.RecordError`. This is the one place the claim limit is
    checked.
    """
    if (whole := answer_claim(response, question)) is not None:
        return cited(response, [whole])  # its citation markers, as any claim's
    limit = claim_tokens(parts)
    fitted = fit_claims(
        parts.splitter.split(response),
        max_tokens=limit,
        token_offsets=lambda text: token_offsets(parts, text),
        count_tokens=parts.nli.count_tokens,
        response=response,
    )
    if fitted.n_split:
        logger.warning(
            E_LONG_CLAIMS.format(
                record=record, n_split=fitted.n_split, max_tokens=limit, n_pieces=fitted.n_pieces
            )
        )
    (parts.limits if limits is None else limits).check_claims(len(fitted.claims))
    claims = [replace(c, raw=response[c.start : c.end]) for c in fitted.claims]
    return with_question(cited(response, claims), question)


def answer_claim(response: str, question: str | None) -> Claim | None:
    """A whole response that is a short answer ("3 years", "New York City": a phrase the
    splitter would drop as a label) as one claim read with its question, else None."""
    text = response.strip()
    if question is None or not text or "\n" in text:
        return None
    full = claim_with_question(question, text)
    if full is None:
        return None
    start = response.index(text)
    return Claim(full, start, start + len(text), raw=text, written=text)


def _framed(response: str, claim: Claim, breaks: list[int]) -> Claim:
    """``claim`` citing the passage its attribution frame names, if it names one (the
    frame was taken off the claim: it is the sentence's text before the claim, from the
    last of the response's sentence ``breaks`` at or before it)."""
    k = bisect_right(breaks, claim.start)
    start = breaks[k - 1] if k else 0
    n = named_passage(response[start : claim.end])
    return claim if n is None else replace(claim, cites=frozenset({n}))


_SENTENCE_BREAK_RE = re.compile(r"(?<=[.!?])\s+|\n")


def with_question(claims: list[Claim], question: str | None) -> list[Claim]:
    """A lone short answer ("3 years") read with its question as one full claim
    (:func:`~nli_faith.text.questions.claim_with_question`); other claims as they are."""
    if question is None or len(claims) != 1 or claims[0].kind is not None:
        return claims
    full = claim_with_question(question, claims[0].text)
    return claims if full is None else [replace(claims[0], text=full, written=claims[0].text)]


def cited(response: str, claims: list[Claim]) -> list[Claim]:
    """With citation markers: the claims stripped of them and told what they cite; a
    claim whose attribution frame names a passage ("Passage 2 states that ...") cites it."""
    breaks = [m.end() for m in _SENTENCE_BREAK_RE.finditer(response)]  # once a response
    claims = [_framed(response, c, breaks) for c in claims]
    markers = find_citations(response)
    if not markers or not claims:
        return claims
    cites = assign_citations(markers, [(c.start, c.end) for c in claims])
    return [
        replace(c, text=strip_citations(c.text), cites=c.cites if d is None else d)
        for c, d in zip(claims, cites)
    ]


def chunk(parts: Parts, context: str | Sequence[str], claims: Sequence[Claim]) -> list[Chunk]:
    """Split the context into chunks that fit the model beside the longest claim."""
    return chunk_documents(
        as_context(context),
        budget=budget(parts, claims),
        count_tokens=parts.nli.count_tokens,
        token_offsets=lambda text: token_offsets(parts, text),
        overlap=parts.chunk_overlap,
        sentences=parts.sentence_chunks,
    )


def plan_response(
    parts: Parts,
    response: str,
    context: str | Sequence[str],
    *,
    record: str = "the record",
    limits: Limits | None = None,
    question: str | None = None,
) -> Plan:
    """The plan of one response against its context (``limits``: see :func:`split_claims`),
    read with its question, if any."""
    claims = split_claims(parts, response, record=record, limits=limits, question=question)
    return plan_claims(parts, claims, context)


def plan_claims(
    parts: Parts,
    claims: list[Claim],
    context: str | Sequence[str],
    *,
    chunks: list[Chunk] | None = None,
) -> Plan:
    """The plan of given claims against a context (a reference answer is one, too);
    ``chunks``: the context already cut for these claims (:func:`chunk`), to reuse."""
    docs = as_context(context)
    if chunks is None:
        chunks = chunk(parts, docs, claims) if claims else []
    if parts.prefilter is not None and claims and chunks:
        mask = parts.prefilter.select(
            [c.text for c in claims], [c.text for c in chunks], members=sentence_members(chunks)
        )
    else:
        mask = np.ones((len(claims), len(chunks)), dtype=bool)
    if parts.composite and claims and chunks:
        extra, extra_mask = plan_composites(
            [c.text for c in claims],
            chunks,
            count_tokens=parts.nli.count_tokens,
            budget=budget(parts, claims),
            premise=parts.composite_premise,
        )
        if extra:
            chunks = chunks + extra
            mask = np.hstack([mask, extra_mask])
    if claims:  # rules stage: claims about the context itself need no model pair
        mask &= ~rule_rows(claims)[:, None]
    return Plan(claims, chunks, mask)


def plan_record(parts: Parts, item: tuple[Any, str]) -> Planned | Failed:
    """One ``(record, name)``: its plan and reference answer, or why it cannot be scored.

    A :class:`~nli_faith.errors.RecordError` in place of a record (a line that was not
    valid JSON, say) stands for a record that failed before scoring: its error.
    """
    rec, name = item
    if isinstance(rec, RecordError):
        return Failed.of(rec)
    try:
        parsed = parse_record(rec, limits=parts.limits)
    except Exception as err:  # noqa: BLE001 - the record's error, not the batch's
        return Failed.of(err)
    return plan_parsed(parts, (parsed, name))


def plan_parsed(
    parts: Parts, item: tuple[Record | RecordError, str], *, limits: Limits | None = None
) -> Planned | Failed:
    """One ``(record, name)`` whose record :func:`~nli_faith.records.parse_record` has
    already checked (it is not parsed again), or the ``RecordError`` that parsing it
    raised: its plan, or why it cannot be scored. The claims are held to ``limits``
    (default: the scorer's), as the record's other fields were when it was parsed.
    """
    rec, name = item
    if isinstance(rec, RecordError):
        return Failed.of(rec)
    try:
        plan = plan_response(
            parts, rec.response, rec.context, record=name, limits=limits, question=rec.question
        )
    except Exception as err:  # noqa: BLE001 - the record's error, not the batch's
        return Failed.of(err)
    return Planned(plan, rec.reference)
