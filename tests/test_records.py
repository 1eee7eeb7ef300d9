import pytest

from nli_faith.errors import RecordError
from nli_faith.records import parse_record


def test_deepeval_and_ragas_field_names():
    d = parse_record({"input": "q", "actual_output": "a", "retrieval_context": ["c1", "c2"]})
    assert (d.response, d.context, d.question) == ("a", ["c1", "c2"], "q")
    r = parse_record({"question": "q", "answer": "a", "contexts": ["c"]})
    assert (r.response, r.context) == ("a", ["c"])
    r = parse_record({"user_input": "q", "response": "a", "retrieved_contexts": "one doc"})
    assert r.context == ["one doc"]


@pytest.mark.parametrize(
    "rec, field, match",
    [
        ({"context": ["c"]}, "response", "no response field"),
        ({"response": "a"}, "context", "no context field"),
        ({"response": 3, "context": "c"}, "response", "'response' must be a string, got int"),
        ({"response": "a", "contexts": ["ok", 7]}, "contexts", "'contexts' item 1"),
        ({"response": "a", "context": {"x": 1}}, "context", "string or a list of strings"),
    ],
)
def test_malformed_records_name_the_field(rec, field, match):
    with pytest.raises(RecordError, match=match) as info:
        parse_record(rec)
    assert info.value.field == field


def test_non_object_record():
    with pytest.raises(RecordError, match="not a JSON object"):
        parse_record(["a", "b"])
