"""Error codes: every message has one stable code, kept through ``format`` and pickling,
and library messages name library options, not command-line flags."""

from __future__ import annotations

import argparse
import doctest
import pickle
import re
from pathlib import Path

import pytest

import nli_faith
from nli_faith import errors, exceptions
from nli_faith.errors import CODES, E_CLAIM_LIMIT, Message, RecordError, with_code
from nli_faith.records import Limits, parse_record

#: Packages and modules below the shells: their messages must not name CLI flags.
LIBRARY = ("records.py", "io.py", "scorer.py", "config.py", "engine", "scoring", "rules",
           "text", "nli")  # fmt: skip


def test_every_message_has_one_code_and_no_code_is_shared():
    names = [n for n in vars(errors) if re.fullmatch(r"E_[A-Z0-9_]+", n)]
    assert sorted(names) == sorted(CODES)
    assert len(set(CODES.values())) == len(CODES)
    for name in names:
        msg = getattr(errors, name)
        assert isinstance(msg, Message) and msg.code == CODES[name]


@pytest.mark.parametrize("module", [errors, exceptions], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_the_exception_classes_are_importable_from_errors_too():
    public = [
        n
        for n, v in vars(exceptions).items()
        if isinstance(v, type) and v.__module__ == exceptions.__name__
    ]
    assert {"NliFaithError", "RecordError", "ThresholdsError", "Message"} <= set(public)
    assert all(getattr(errors, n) is getattr(exceptions, n) for n in public)


def test_a_limit_error_carries_its_code_through_format_and_pickling():
    with pytest.raises(RecordError) as info:
        parse_record({"response": "x" * 10, "context": "y"}, limits=Limits(max_response_chars=5))
    err = info.value
    assert err.code == CODES["E_LIMIT"] and err.field == "response"
    again = pickle.loads(pickle.dumps(err))  # worker processes and Ray pickle errors
    assert (again.code, str(again), again.field) == (err.code, str(err), "response")
    assert with_code(err) == f"[{err.code}] {err}"
    assert with_code(ValueError("plain")) == "plain"


def test_the_claim_limit_names_the_option_not_the_flag():
    text = E_CLAIM_LIMIT.format(field="response", size=4, limit=3)
    assert "(max_claims)" in text and "--" not in text


def _cli_flags() -> set[str]:
    from nli_faith.cli import build_parser

    flags: set[str] = set()
    todo = [build_parser()]
    while todo:
        parser = todo.pop()
        for action in parser._actions:
            flags.update(s for s in action.option_strings if s.startswith("--"))
            if isinstance(action, argparse._SubParsersAction):
                todo.extend(action.choices.values())
    flags.discard("--help")
    return flags


def test_library_messages_name_no_command_line_flag():
    root = Path(nli_faith.__file__).parent
    used: set[str] = set()
    for name in LIBRARY:
        path = root / name
        for py in [path] if path.is_file() else path.rglob("*.py"):
            used.update(re.findall(r"\b(E_[A-Z0-9_]+)\b", py.read_text(encoding="utf-8")))
    flags = _cli_flags()
    assert len(flags) > 20  # the parser was read
    named = {
        n: sorted(f for f in flags if re.search(re.escape(f) + r"\b", getattr(errors, n)))
        for n in used & set(CODES)
    }
    assert {n: f for n, f in named.items() if f} == {}
