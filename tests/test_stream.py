"""Checking an answer while it is streamed (``FaithfulnessScorer.check_stream``)."""

from __future__ import annotations

import asyncio
import dataclasses
import random
import re

import pytest

from nli_faith import FaithfulnessScorer
from nli_faith.errors import OptionError, RecordError
from nli_faith.records import Limits
from nli_faith.text.sentences import sentence_spans

CONTEXT = [
    "The device is covered for a period of twenty-four months from the date of purchase. "
    "Returns are accepted within 30 days.",
    "We provide complimentary delivery on purchases over $50. Orders ship from Lyon, France.",
]
ANSWERS = [
    "Great question! The warranty covers the device for twenty-four months. Delivery is "
    "free on orders over $50. Returns are accepted within 90 days. Thanks for asking",
    "## Warranty\n\n- The device is covered for 24 months [1].\n- Orders ship from Lyon.\n\n"
    "Returns are accepted within 30 days (Source 1). I cannot say more about refunds.",
    "Orders ship from Paris. The warranty lasts thirty-six months",
    "",
    "Dr. Smith says the U.S. price is $1.5 million. Returns are accepted within 30 days.",
]


@pytest.fixture(scope="module")
def scorer() -> FaithfulnessScorer:
    return FaithfulnessScorer.guardrail()


def pieces_of(text: str, how: str, seed: int = 0) -> list[str]:
    """The answer cut as a streaming LLM might send it."""
    if how == "chars":
        return list(text)
    if how == "words":
        return re.findall(r"\S+\s*|\s+", text)
    rng = random.Random(seed)
    out, pos = [], 0
    while pos < len(text):
        n = rng.randint(1, 12)
        out.append(text[pos : pos + n])
        pos += n
    return out


def claims_key(result):
    return [(c.claim, c.start, c.end, c.verdict, c.evidence) for c in result.claims]


@pytest.mark.parametrize("how", ["chars", "words", "random"])
@pytest.mark.parametrize("answer", ANSWERS)
def test_the_result_at_the_end_is_score_of_the_whole_answer(scorer, answer, how):
    stream = scorer.check_stream(iter(pieces_of(answer, how)), CONTEXT)
    checks = list(stream)
    whole = scorer.score(answer, CONTEXT)
    assert stream.result is not None and not stream.result.blocked
    assert stream.result.result == whole
    assert stream.result.released == answer
    # the sentences released, joined, are the answer; each claim was checked in its sentence
    assert "".join(c.text for c in checks) == answer
    streamed = [c for check in checks for c in check.claims]
    assert [(c.claim, c.start, c.end, c.verdict) for c in streamed] == [
        (c.claim, c.start, c.end, c.verdict) for c in whole.claims
    ]


def test_sentences_are_those_of_the_whole_answer(scorer):
    answer = ANSWERS[0]
    checks = list(scorer.check_stream(pieces_of(answer, "words"), CONTEXT))
    assert [(c.start, c.end) for c in checks] == sentence_spans(answer)
    for check in checks:
        for claim in check.claims:
            assert check.start <= claim.start < check.end


def test_each_sentence_is_checked_before_the_next_one_is_read(scorer):
    answer = "Orders ship from Lyon. Returns are accepted within 30 days. Delivery is free."
    read: list[str] = []
    seen_when: list[int] = []

    def tokens():
        for piece in pieces_of(answer, "words"):
            read.append(piece)
            yield piece

    for check in scorer.check_stream(tokens(), CONTEXT):
        seen_when.append(len("".join(read)))
        # a sentence is checked as soon as the next one has begun (its first word), or
        # at the end of the stream
        after = "".join(read)[check.end :].split()
        assert len(after) <= 1
    assert len(seen_when) == 3 and seen_when[0] < len(answer)


def test_a_contradiction_stops_the_stream_and_says_which_claim_and_why(scorer):
    answer = "Orders ship from Lyon. Returns are accepted within 90 days. Delivery is free."
    read: list[str] = []

    def tokens():
        for piece in pieces_of(answer, "words"):
            read.append(piece)
            yield piece

    stream = scorer.check_stream(tokens(), CONTEXT, block_on_contradiction=True)
    checks = list(stream)
    assert [c.decision for c in checks] == ["pass", "block"]
    end = stream.result
    assert end.blocked and end.released == "Orders ship from Lyon."
    assert end.failed_claim.claim == "Returns are accepted within 90 days."
    assert end.failed_claim.verdict == "no" and "30 days" in end.reason
    # the rest of the stream was not read, and the result is that of what was
    assert "free." not in "".join(read)
    assert end.result == scorer.score(answer[: checks[-1].end], CONTEXT)


def test_a_strict_bar_stops_at_the_sentence_that_brings_the_answer_below_it(scorer):
    answer = "Orders ship from Lyon. The device is waterproof. Returns are accepted within 30 days."
    stream = scorer.check_stream(pieces_of(answer, "words"), CONTEXT, block_below_strict=0.8)
    checks = list(stream)
    assert [c.decision for c in checks] == ["pass", "block"]
    assert checks[0].strict_so_far == 1.0 and checks[1].strict_so_far == 0.5
    assert stream.result.failed_claim.claim == "The device is waterproof."
    assert "the answer so far: the strict score 0.50 is below 0.8" in stream.result.reason
    # without a policy nothing is stopped, the same claim is only reported
    unchecked = scorer.check_stream(pieces_of(answer, "words"), CONTEXT)
    assert [c.decision for c in unchecked] == ["pass"] * 3


def test_an_async_stream_gives_the_same_checks(scorer):
    answer = ANSWERS[0]

    async def tokens():
        for piece in pieces_of(answer, "random", seed=3):
            await asyncio.sleep(0)
            yield piece

    async def run():
        stream = scorer.check_stream(tokens(), CONTEXT)
        return [c async for c in stream], stream.result

    checks, end = asyncio.run(run())
    sync = list(scorer.check_stream(pieces_of(answer, "words"), CONTEXT))
    assert checks == sync
    assert end.result == scorer.score(answer, CONTEXT)


def test_the_default_torch_scorer_agrees_with_score(scorer):
    torch_scorer = FaithfulnessScorer(device="cpu")
    answer = ANSWERS[1]
    stream = torch_scorer.check_stream(pieces_of(answer, "random", seed=1), CONTEXT)
    list(stream)
    whole = torch_scorer.score(answer, CONTEXT)
    got = stream.result.result
    assert [(c.claim, c.verdict, c.evidence) for c in got.claims] == [
        (c.claim, c.verdict, c.evidence) for c in whole.claims
    ]
    for a, b in zip(got.claims, whole.claims):  # pairs batched otherwise: padding noise only
        assert a.p_entail == pytest.approx(b.p_entail, abs=2e-2)
    assert (got.strict, got.lenient) == (whole.strict, whole.lenient)


def test_bad_streams_get_clear_errors(scorer):
    with pytest.raises(OptionError, match="iterable .* of strings, got str; .* call score"):
        scorer.check_stream("The whole answer.", CONTEXT)
    with pytest.raises(OptionError, match="block_below_strict"):
        scorer.check_stream([], CONTEXT, block_below_strict=2)
    with pytest.raises(OptionError, match="piece of type int"):
        list(scorer.check_stream(["It ships ", 3], CONTEXT))
    with pytest.raises(RecordError, match="context"):
        scorer.check_stream([], None)


def test_an_empty_stream_has_no_claims_and_no_score(scorer):
    stream = scorer.check_stream(iter([]), CONTEXT)
    assert list(stream) == []
    assert stream.result.result.n_claims == 0 and stream.result.result.strict is None
    assert stream.result.result == scorer.score("", CONTEXT)


def test_a_stream_that_breaks_off_raises_and_keeps_what_was_checked(scorer):
    def tokens():
        yield from pieces_of("Orders ship from Lyon. Returns are", "words")
        raise ConnectionError("the LLM went away")

    stream = scorer.check_stream(tokens(), CONTEXT)
    seen = []
    with pytest.raises(ConnectionError):
        for check in stream:
            seen.append(check)
    assert [c.text for c in seen] == ["Orders ship from Lyon."]
    assert stream.result is None  # not finished: nothing claims the answer was whole


def test_a_sentence_past_the_length_limit_is_refused_naming_the_limit():
    small = dataclasses.replace(Limits(), max_response_chars=1_000)
    scorer = FaithfulnessScorer.guardrail(limits=small)
    endless = ("word " for _ in range(10_000))  # no full stop, ever
    with pytest.raises(RecordError, match=r"over the limit of 1,000 \(max_response_chars\)"):
        list(scorer.check_stream(endless, CONTEXT))


def test_a_full_stop_inside_a_number_releases_nothing(scorer):
    pieces = ["Orders over $", "1", ".", "5", " million ship free", ".", " Returns", " are fine."]
    checks = list(scorer.check_stream(pieces, CONTEXT))
    assert [c.text for c in checks] == ["Orders over $1.5 million ship free.", " Returns are fine."]
    assert checks[0].claims[0].claim == "Orders over $1.5 million ship free."
