"""Claims the context covers: every word and number found, no conflict, some support.

A small NLI model leaves ``idk`` many claims that restate the context in another order or
join what two sentences say. A claim the model leaves ``idk`` is *covered*, and ``yes``,
when

* every content word of it (:func:`~nli_faith.text.lexical.content_words`: lower-cased,
  plurals reduced, not a stop word) and every number of it, in digits or words
  (:func:`~nli_faith.text.numerals.extract_numbers`), is somewhere in the context,
* the model's support for it, the mean of its three best entailments over the chunks
  scored against it, reaches :data:`COVERED_ENTAIL`, and
* no conflict shows: neither its best-entailing chunk nor the chunk that contradicts it
  most (under the contradiction threshold, or the claim would not be ``idk``) states
  another number, date or name, a negation or an opposite word
  (:func:`~nli_faith.rules.conflicts.find_conflict`), and no chunk states one of its
  quantities with another value.

Its ``rule`` says so and its band stays ``uncertain`` (a claim for an LLM judge to look
at). A claim the model *contradicts* is left to the model, even when its words are all in
the context: a swap of roles ("Jones defeated Smith." against "Smith defeated Jones.")
shows no conflict to these rules, and the bag of words cannot see it.

Chosen on the development answers (``python -m benchmarks run rag_dev``): with the rule
the sampled faithfulness sets' balanced accuracy moved within its standard error (the
figures are in the changelog and the benchmark's page).

Example:
    >>> ctx = context_terms([
    ...     "Abdirahman Sheik Mohamud was charged on Thursday with two counts.",
    ...     "A naturalized U.S. citizen pleaded not guilty to federal charges."])
    >>> covered("Abdirahman Sheik Mohamud, a naturalized U.S. citizen, pleaded not guilty.",
    ...         ctx, entail_top3=0.3)
    True
    >>> covered("Mohamud pleaded guilty in Texas.", ctx, entail_top3=0.3)  # Texas
    False
    >>> covered("Mohamud was charged with nine counts.", ctx, entail_top3=0.3)  # nine
    False
"""

from __future__ import annotations

from collections.abc import Sequence

from nli_faith.text.lexical import content_words
from nli_faith.text.numerals import extract_numbers

__all__ = ["COVERED_ENTAIL", "context_terms", "covered", "covered_note"]

#: The mean of a claim's three best entailments (a missing one counting 0) that a covered
#: claim needs.
COVERED_ENTAIL = 0.2


def context_terms(texts: Sequence[str]) -> frozenset[str]:
    """The content words and the numbers (marked ``#``) of ``texts``, together."""
    out: set[str] = set()
    for t in texts:
        out |= content_words(t)
        out |= {f"#{n}" for n in extract_numbers(t)}
    return frozenset(out)


def covered(claim: str, context: frozenset[str], *, entail_top3: float) -> bool:
    """Every content word and number of ``claim`` is in ``context`` (its
    :func:`context_terms`), and the model's support (``entail_top3``) reaches
    :data:`COVERED_ENTAIL`. The conflicts are the caller's to rule out."""
    words = content_words(claim)
    numbers = {f"#{n}" for n in extract_numbers(claim)}
    return bool(words) and entail_top3 >= COVERED_ENTAIL and words <= context and numbers <= context


def covered_note(entail_top3: float) -> str:
    """The rule note of a covered claim."""
    return (
        f"covered: every content word and number of the claim is in the context, no "
        f"number, date, name, negation or opposite word conflicts with it, and the model's "
        f"support is {entail_top3:.2f} (mean of its three best entailments); the model "
        f"alone found no chunk that entails it"
    )
