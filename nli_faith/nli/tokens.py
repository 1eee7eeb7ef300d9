"""Token ids of texts and of (premise, hypothesis) pairs, each distinct text tokenized once.

A chunk is paired with every claim, and sized (``count_tokens``) before that; the pairs'
ids are then assembled from the two texts' cached ids and the tokenizer's own special
tokens (:class:`PairTemplate`), instead of tokenizing every pair again. On the int8
guardrail path this is most of the host-side work of a request.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate, chain

#: Distinct texts whose ids are kept (the cache is emptied when full).
CACHE_SIZE = 50_000
#: Distinct words whose ids are kept (see :class:`WordIds`).
WORD_CACHE_SIZE = 200_000
#: Control characters (other than tab, newline, carriage return) that a BERT normalizer
#: deletes where Python's ``str.split`` may split: a text holding one is tokenized whole.
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
#: Texts a splitting tokenizer must give the same ids word by word and whole (checked
#: when a :class:`WordIds` is made).
_CHECKS = (
    "The cat sat, said O'Neil. A cat, 42 times!",
    "Caf\u00e9 na\u00efve \u00c9COLE \u4e2d\u6587 x\u00a0y\u2003z \u201cquoted\u201d\u2014ok",
    "  leading\ttabs\nand\r\nnew lines  ",
    "supercalifragilisticexpialidocious" * 4 + " (3.5%) $1,200.50 e-mail@x.org",
)


@dataclass(frozen=True)
class PairTemplate:
    """Where a tokenizer puts its special tokens around a pair: ``[CLS] a [SEP] b [SEP]``,
    ``<s> a </s></s> b </s>``, with the segment id of each part."""

    prefix: tuple[int, ...]
    middle: tuple[int, ...]
    suffix: tuple[int, ...]
    types: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int, int] | None

    @classmethod
    def of(cls, tokenizer) -> PairTemplate | None:
        """Read off by tokenizing a pair with and without special tokens; ``None`` when the
        tokenizer does not follow a fixed template (its pairs are then tokenized whole)."""
        found = cls._find(tokenizer, "premise", "hypothesis")
        check = ("The cat sat, said O'Neil.", "A cat, 42 times.")
        return found if found is not None and found._matches(tokenizer, *check) else None

    @classmethod
    def _find(cls, tokenizer, a_text: str, b_text: str) -> PairTemplate | None:
        a, b = (tokenizer(t, add_special_tokens=False)["input_ids"] for t in (a_text, b_text))
        enc = tokenizer(a_text, b_text)
        ids, tt = enc["input_ids"], enc.get("token_type_ids")
        for i in range(len(ids) - len(a) + 1):
            if ids[i : i + len(a)] != a:
                continue
            for j in range(i + len(a), len(ids) - len(b) + 1):
                if ids[j : j + len(b)] == b:
                    k = j + len(b)
                    types = None
                    if tt is not None:
                        types = (tuple(tt[:i]), tuple(tt[i + len(a) : j]), tuple(tt[k:]))
                        types = (*types, tt[i], tt[j])
                    return cls(tuple(ids[:i]), tuple(ids[i + len(a) : j]), tuple(ids[k:]), types)
        return None

    def _matches(self, tokenizer, a_text: str, b_text: str) -> bool:
        a, b = (tokenizer(t, add_special_tokens=False)["input_ids"] for t in (a_text, b_text))
        enc = tokenizer(a_text, b_text)
        ids, types = self.build([a], [b])
        return ids[0] == enc["input_ids"] and (types is None or types[0] == enc["token_type_ids"])

    @property
    def num_special(self) -> int:
        return len(self.prefix) + len(self.middle) + len(self.suffix)

    def build(self, a_ids: list[list[int]], b_ids: list[list[int]]) -> tuple[list, list | None]:
        """Input ids (and token type ids) of each pair ``(a_ids[k], b_ids[k])``."""
        ids = [[*self.prefix, *a, *self.middle, *b, *self.suffix] for a, b in zip(a_ids, b_ids)]
        if self.types is None:
            return ids, None
        pre, mid, suf, ta, tb = self.types
        types = [[*pre, *[ta] * len(a), *mid, *[tb] * len(b), *suf] for a, b in zip(a_ids, b_ids)]
        return ids, types


class WordIds:
    """Ids of texts put together from the ids of their words, each distinct word
    tokenized once, for tokenizers that cut a text at whitespace before anything else.

    A BERT tokenizer (``BertNormalizer``, ``BertPreTokenizer``, ``WordPiece``) normalizes
    each character on its own, splits at whitespace, then at punctuation, and cuts each
    piece into word pieces: a text's ids are its whitespace-separated words' ids, in
    order. Texts are mostly made of words seen before (a chunk's sentences, the same
    words across a record), so most of them are looked up, not tokenized. :meth:`of`
    gives one only for such a tokenizer and only when it gives the same ids word by word
    as whole on :data:`_CHECKS`; a text holding a control character or an added token
    (``[SEP]``) is left to the tokenizer (:meth:`plain`).
    """

    def __init__(self, tokenizer, added: Sequence[str]) -> None:
        self.tokenizer = tokenizer
        self.added = tuple(added)
        self.cache: dict[str, list[int]] = {}

    @classmethod
    def of(cls, tokenizer) -> WordIds | None:
        backend = getattr(tokenizer, "backend_tokenizer", None)
        if backend is None:
            return None
        try:
            spec = json.loads(backend.to_str())
            added = [t.content for t in backend.get_added_tokens_decoder().values()]
        except (AttributeError, TypeError, ValueError):
            return None
        kinds = (
            (spec.get("normalizer") or {}).get("type"),
            (spec.get("pre_tokenizer") or {}).get("type"),
            (spec.get("model") or {}).get("type"),
        )
        if kinds != ("BertNormalizer", "BertPreTokenizer", "WordPiece"):
            return None
        words = cls(tokenizer, added)
        whole = tokenizer(list(_CHECKS), add_special_tokens=False, truncation=False)
        return words if words.ids(list(_CHECKS)) == whole["input_ids"] else None

    def plain(self, text: str) -> bool:
        """Can ``text``'s ids be put together from its words'?"""
        return _CONTROL_RE.search(text) is None and not any(t in text for t in self.added)

    def ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Ids of ``texts`` (each :meth:`plain`), without special tokens."""
        cache = self.cache
        split = [t.split() for t in texts]
        new = [w for w in set().union(*split) if w not in cache]
        if len(cache) + len(new) > WORD_CACHE_SIZE:
            cache.clear()
            new = list(set().union(*split))
        if new:
            cache.update(zip(new, self._tokenize(new)))
        get = cache.__getitem__
        return [list(chain.from_iterable(map(get, words))) for words in split]

    def _tokenize(self, words: list[str]) -> list[list[int]]:
        """Each word's ids, from one pass over the words joined by spaces: a token
        belongs to the word its first character is in."""
        text = " ".join(words)
        enc = self.tokenizer(
            text,
            add_special_tokens=False,
            truncation=False,
            return_offsets_mapping=True,
            verbose=False,
        )
        starts = list(accumulate((len(w) + 1 for w in words[:-1]), initial=0))
        out: list[list[int]] = [[] for _ in words]
        for tid, (a, _) in zip(enc["input_ids"], enc["offset_mapping"]):
            out[bisect_right(starts, a) - 1].append(tid)
        return out


class PairEncoder:
    """Token ids of texts (cached) and of pairs, for one tokenizer.

    Example:
        >>> from transformers import AutoTokenizer
        >>> from nli_faith.nli.registry import resolve_model
        >>> enc = PairEncoder(AutoTokenizer.from_pretrained(resolve_model("default").path))
        >>> enc.count(["Prices fell."])
        [3]
    """

    def __init__(self, tokenizer, *, cache_size: int | None = None) -> None:
        self.tokenizer = tokenizer
        self.template = PairTemplate.of(tokenizer)
        self.words = WordIds.of(tokenizer)
        self.cache: dict[str, list[int]] = {}
        self.cache_size = CACHE_SIZE if cache_size is None else cache_size

    def text_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Ids of ``texts`` without special tokens, each distinct text tokenized once."""
        cache = self.cache
        wanted = list(dict.fromkeys(texts))
        if len(cache) + len(wanted) > self.cache_size:
            cache.clear()  # before listing what is missing, so nothing asked for is lost
        new = [t for t in wanted if t not in cache]
        if new and self.words is not None:  # put together from the words' ids
            plain = [t for t in new if self.words.plain(t)]
            cache.update(zip(plain, self.words.ids(plain)))
            new = [t for t in new if t not in cache]
        if new:
            enc = self.tokenizer(new, add_special_tokens=False, truncation=False, verbose=False)
            cache.update(zip(new, enc["input_ids"]))
        return [cache[t] for t in texts]

    def count(self, texts: Sequence[str]) -> list[int]:
        """Token counts without special tokens."""
        return [len(x) for x in self.text_ids(texts)]

    def pair_lengths(self, pairs: Sequence[tuple[str, str]]) -> list[int]:
        """Tokens of each pair with the special tokens, untruncated."""
        special = self.tokenizer.num_special_tokens_to_add(pair=True)
        a, b = self.count([p for p, _ in pairs]), self.count([h for _, h in pairs])
        return [x + y + special for x, y in zip(a, b)]

    def pair_ids(self, pairs: Sequence[tuple[str, str]]) -> tuple[list, list | None]:
        """Input ids (and token type ids, for models that take them) of each pair, untruncated."""
        if self.template is None:
            enc = self.tokenizer(
                [p for p, _ in pairs], [h for _, h in pairs], truncation=False, verbose=False
            )
            return enc["input_ids"], enc.get("token_type_ids")
        a = self.text_ids([p for p, _ in pairs])
        return self.template.build(a, self.text_ids([h for _, h in pairs]))
