"""Guardrails AI validator: ``NLIFaithfulness`` checks an LLM answer against the context
given in the metadata, with nli-faith (no LLM, no hub, no network).
Needs ``pip install "nli-faith[guardrails]"``.

Registered as ``nli-faith/faithfulness`` for strings. The guard's metadata must hold
``context`` (one string, or one string per retrieved document) and may hold ``question``.
An answer passes when its strict score (supported claims / claims; ``score_type`` picks
``lenient`` or ``soft``) reaches ``threshold`` (default 1.0: every claim supported). A
failing answer gives a ``FailResult`` whose ``error_spans`` are the words to blame in
each claim that is not supported (character offsets into the answer, with the evidence
they were compared with as the reason), and whose ``fix_value`` is the answer without
those claims, so every ``on_fail`` action works: ``exception``, ``fix`` (keep only the
supported claims), ``filter``, ``refrain``, ``noop``, ``reask``. An answer with no
verifiable claim passes (there is nothing to check); an answer checked against an empty
context (no document holds any text) fails, whatever the score: nothing was checked.

Example:
    >>> from nli_faith.integrations.guardrails import Guard, NLIFaithfulness
    >>> guard = Guard().use(NLIFaithfulness(on_fail="fix", device="cpu"))
    >>> guard.configure(allow_metrics_collection=False)
    >>> out = guard.validate("Paris is in France. The warranty lasts 36 months.",
    ...                      metadata={"context": ["Paris is the capital of France.",
    ...                                            "The warranty lasts 24 months."]})
    >>> out.validation_passed, out.validated_output
    (True, 'Paris is in France.')

Streaming (``guard(llm_api=..., stream=True)``, Guardrails' own streaming validation):
the validator's chunks are the answer's sentences, cut where ``score()`` cuts them (a
sentence is complete once the next has begun); each is validated against the context as
it completes, with its error spans (offsets in the sentence) and fix value. With
``on_fail="fix"`` a sync ``Guard`` streams one validated sentence at a time (a sentence
that fails comes out without its unsupported claims) and validates the last sentence when
the stream ends. What Guardrails 0.11 does otherwise: without ``fix``, a sync ``Guard``
streams the LLM's pieces as they come and validates behind them (``exception`` is raised
once the failing sentence has already gone out; the last sentence is never validated, as
Guardrails gives the validator no end of stream there; ``filter`` and ``refrain`` fail
inside Guardrails with a ``TypeError``); an ``AsyncGuard`` streams validated sentences in
every mode, ``exception`` stops before the failing sentence, but the last sentence is
never validated nor sent. For a stream that must stop at the first failing sentence, with
the claim to blame, use ``FaithfulnessScorer.check_stream`` (or the LangChain guard).

Guardrails sends usage metrics unless told not to: run ``guardrails configure
--disable-metrics`` once, or call ``guard.configure(allow_metrics_collection=False)``.
Importing Guardrails asks NLTK to download its sentence tokenizer when it is missing;
this module turns that download into a no-op during the import (nothing here uses it).
Import it before Guardrails, or take ``Guard`` and ``AsyncGuard`` from it (they are
Guardrails' own, re-exported), to keep the import offline.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from nli_faith.integrations.batching import (
    batcher_for,
    import_optional,
    refuse_llm_options,
    resolve_scorer,
)
from nli_faith.integrations.gate import blamed, ruling, without_unsupported
from nli_faith.scoring.gate import check_score
from nli_faith.text.sentences import sentence_spans

if TYPE_CHECKING:  # pragma: no cover
    from nli_faith.results import FaithfulnessResult
    from nli_faith.scorer import FaithfulnessScorer

logger = logging.getLogger(__name__)

#: The metadata key of the context, and the validator's registered name.
CONTEXT_KEY = "context"
VALIDATOR_NAME = "nli-faith/faithfulness"

#: Where a sentence may have ended and the next begun (an end mark or a line break, then
#: white space and more text; CJK full stops need no space): only then is the sentence
#: splitter asked.
_MAYBE_NEXT_SENTENCE = re.compile(r"[.!?\u2026\n][^\s]*\s+\S|[\u3002\uff01\uff1f]\S")


@contextmanager
def _no_nltk_download():
    """Guardrails calls ``nltk.download("punkt")`` at import when the data is missing."""
    try:
        import nltk
    except ImportError:
        yield
        return
    real = nltk.download

    def skipped(info_or_id: Any = None, *args: Any, **kwargs: Any) -> bool:
        logger.debug("skipped nltk.download(%r) while importing guardrails", info_or_id)
        return False

    nltk.download = skipped
    try:
        yield
    finally:
        nltk.download = real


with _no_nltk_download():
    import_optional("guardrails", extra="guardrails", what="nli_faith.integrations.guardrails")
    from guardrails import AsyncGuard, Guard
    from guardrails.validators import (
        ErrorSpan,
        FailResult,
        PassResult,
        ValidationResult,
        Validator,
        register_validator,
    )

#: ``Guard`` and ``AsyncGuard`` are Guardrails' own, re-exported: imported from here, they
#: come without the NLTK download attempt (see the module doc).
__all__ = ["AsyncGuard", "Guard", "NLIFaithfulness"]


@register_validator(name=VALIDATOR_NAME, data_type="string")
class NLIFaithfulness(Validator):
    """Guardrails validator: is every claim of the answer supported by the context?

    Args:
        threshold: the answer passes when its ``score_type`` score reaches it (default
            1.0). ``None`` uses the scorer's calibrated decision
            (``FaithfulnessScorer.from_thresholds``).
        score_type: ``"strict"`` (default), ``"lenient"`` or ``"soft"``.
        on_fail: Guardrails' action on failure (``"exception"`` by default, ``"fix"``,
            ``"filter"``, ``"refrain"``, ``"noop"``, ``"reask"``, or a function).
        scorer: a ready :class:`~nli_faith.scorer.FaithfulnessScorer` (then no other
            scorer option).
        nli_model: the NLI model: registry name, local path or hub id (default bundled).
        **scorer_options: any keyword option of ``FaithfulnessScorer`` (``device``,
            ``backend="onnx"``, ``prefilter``...). Validators with the same options share
            one scorer, so a validator per request loads the model once.

    Metadata: ``context`` (required), ``question`` (optional). :meth:`result_for` gives
    the full result (claims, verdicts, evidence) of an answer already validated.
    """

    required_metadata_keys = [CONTEXT_KEY]

    def __init__(
        self,
        threshold: float | None = 1.0,
        score_type: str = "strict",
        on_fail: Any = None,
        *,
        scorer: FaithfulnessScorer | None = None,
        nli_model: str = "default",
        **scorer_options: Any,
    ) -> None:
        refuse_llm_options(
            scorer_options,
            ("model", "llm_callable", "llm"),
            metric="NLIFaithfulness",
            library="Guardrails",
        )
        # only plain arguments go to Guardrails, which keeps them to describe the validator
        super().__init__(on_fail=on_fail, threshold=threshold, score_type=score_type)
        self.threshold = threshold
        self.score_type = check_score(score_type)
        self.scorer = resolve_scorer(scorer, nli_model, scorer_options)
        self._batcher = batcher_for(self.scorer)

    def _validate(self, value: Any, metadata: dict[str, Any]) -> ValidationResult:
        record = _record(value, metadata)
        return self._outcome(value, self._batcher.score_many([record])[0])

    async def async_validate(self, value: Any, metadata: dict[str, Any]) -> ValidationResult:
        """With ``AsyncGuard``: answers validated at the same time are scored in one run."""
        record = _record(value, metadata)
        return self._outcome(value, await self._batcher.ascore(record))

    def _chunking_function(self, chunk: str) -> list[str]:
        """Guardrails' streaming: the text accumulated so far, cut after its last complete
        sentence (``[complete sentences, the sentence still growing]``), or ``[]`` while
        no sentence is complete. A sentence is complete once the next has begun; the
        boundaries are those of :func:`~nli_faith.text.sentences.sentence_spans`, the
        splitter ``score()`` uses, so a chunk ends where a sentence of the whole answer
        ends (not at the "." of "$1.5" or "Dr.")."""
        if not _MAYBE_NEXT_SENTENCE.search(chunk):
            return []
        spans = sentence_spans(chunk)
        if len(spans) < 2:
            return []
        cut = spans[-1][0]
        return [chunk[:cut], chunk[cut:]]

    def result_for(self, value: str, metadata: Mapping[str, Any]) -> FaithfulnessResult | None:
        """The full result of an answer already validated with this metadata."""
        return self._batcher.cached(_record(value, metadata))

    def _outcome(self, value: Any, result: FaithfulnessResult) -> ValidationResult:
        if result.error is not None:
            return FailResult(error_message=f"nli-faith could not score it: {result.error}")
        ruled = ruling(
            result, score_type=self.score_type, threshold=self.threshold, scorer=self.scorer
        )
        if ruled.passed is not False:
            return PassResult()
        spans = [
            ErrorSpan(start=s.start, end=s.end, reason=reason)
            for s, reason in zip(_spans(result), blamed(result))
        ]
        first = f"The answer does not pass: {ruled.reason}"
        fixed = without_unsupported(value, result)
        if fixed and isinstance(value, str):  # a streamed sentence keeps its trailing space
            fixed += value[len(value.rstrip()) :]
        return FailResult(
            error_message="\n".join([first, result.reason, *blamed(result)]),
            fix_value=fixed,
            error_spans=spans,
        )


def _spans(result: FaithfulnessResult) -> list:
    return [s for c in result.claims for s in c.unsupported_spans]


def _record(value: Any, metadata: Mapping[str, Any]) -> dict[str, Any]:
    if CONTEXT_KEY not in metadata:
        raise ValueError(
            f"NLIFaithfulness needs the context in the metadata: "
            f'guard.validate(answer, metadata={{"{CONTEXT_KEY}": [...]}}).'
        )
    return {
        "response": value,
        "context": metadata[CONTEXT_KEY],
        "question": metadata.get("question"),
    }
