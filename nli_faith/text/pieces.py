"""The claim type, and the cleaned segment of a response a claim is made from."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Claim:
    """One checkable claim of a response.

    ``text`` is what the NLI model sees (cleaned); ``response[start:end]`` is where the
    claim sits in the original response.

    Example:
        >>> response = "- **The warranty lasts two years.** [1]"
        >>> from nli_faith.text.claims import ClaimSplitter
        >>> claim = ClaimSplitter().split(response)[0]
        >>> claim
        Claim(text='The warranty lasts two years.', start=4, end=33)
        >>> response[claim.start : claim.end]
        'The warranty lasts two years.'

    ``cites`` holds the 0-based documents the claim's citation markers name (set by the
    scorer for a response with markers, see :mod:`nli_faith.text.citations`), else None.
    """

    text: str
    start: int
    end: int
    cites: frozenset[int] | None = field(default=None, repr=False, compare=False)
    #: For a sentence about the context itself (:mod:`nli_faith.text.context_statements`,
    #: kept only with ``ClaimSplitter(context_statements=True)``): ``"abstention"`` or
    #: ``"absence"``; None for a claim about the world.
    kind: str | None = field(default=None, repr=False, compare=False)
    #: For an absence claim: the thing it says the context does not mention.
    about: str = field(default="", repr=False, compare=False)
    #: ``response[start:end]`` as written (set by the scorer), to map offsets in ``text``
    #: back to the response; None when not set.
    raw: str | None = field(default=None, repr=False, compare=False)
    #: The claim as written when ``text`` is a rewrite of it for the model (a short answer
    #: read with its question, :mod:`nli_faith.text.questions`; a verb phrase with its
    #: shared subject restored, :mod:`nli_faith.text.clauses`); None when not rewritten.
    written: str | None = field(default=None, repr=False, compare=False)


@dataclass
class Piece:
    """A cleaned segment: ``offsets[i]`` is the position in the response of ``text[i]``."""

    text: str
    offsets: list[int]
    kind: str | None = None
    about: str = ""

    def claim(self) -> Claim:
        return Claim(
            self.text, self.offsets[0], self.offsets[-1] + 1, kind=self.kind, about=self.about
        )
