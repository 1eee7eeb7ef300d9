import numpy as np
import pytest

from nli_faith.errors import LabelMapError
from nli_faith.nli.labels import LabelMap


@pytest.mark.parametrize(
    "id2label, expected",
    [
        ({0: "entailment", 1: "neutral", 2: "contradiction"}, (0, 1, 2)),
        ({0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}, (1, 2, 0)),
        ({"0": "Contradiction", "1": "Neutral", "2": "Entailment"}, (2, 1, 0)),
    ],
)
def test_three_way_orders_are_read_case_insensitively(id2label, expected):
    m = LabelMap.from_id2label(id2label)
    assert (m.entailment, m.neutral, m.contradiction) == expected
    assert not m.is_binary


@pytest.mark.parametrize(
    "id2label",
    [
        {0: "entailment", 1: "not_entailment"},
        {0: "not-entailment", 1: "Entailment"},
        {0: "unsupported", 1: "supported"},
    ],
)
def test_two_way_models(id2label):
    m = LabelMap.from_id2label(id2label)
    assert m.is_binary
    assert id2label[m.entailment].lower() in ("entailment", "supported")
    probs = np.array([[0.3, 0.7]], dtype=np.float32)
    canon = m.to_canonical(probs)
    # the negative class is "not supported", never "contradicted"
    assert canon[0, 2] == 0.0
    assert canon[0, 0] == pytest.approx(probs[0, m.entailment])
    assert canon.sum() == pytest.approx(1.0)


def test_unknown_label_set_is_a_clear_error():
    with pytest.raises(LabelMapError, match="LABEL_0.*label_map"):
        LabelMap.from_id2label({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, model="m")


def test_user_override_and_its_validation():
    m = LabelMap.from_mapping({"entailment": 2, "contradiction": 0, "neutral": 1}, num_labels=3)
    canon = m.to_canonical(np.array([[0.1, 0.2, 0.7]], dtype=np.float32))
    np.testing.assert_allclose(canon, [[0.7, 0.2, 0.1]], atol=1e-6)
    with pytest.raises(LabelMapError, match="index 5"):
        LabelMap.from_mapping({"entailment": 5}, num_labels=3)
    with pytest.raises(LabelMapError, match="no 'entailment'"):
        LabelMap.from_mapping({"contradiction": 0}, num_labels=3)
    with pytest.raises(LabelMapError, match="'maybe'"):
        LabelMap.from_mapping({"entailment": 0, "maybe": 1}, num_labels=3)
    for mapping, needle in [
        ({"entailment": 0, "contradiction": 0}, "gives the index 0 twice"),
        ({"entailment": 0, "supported": 1}, "gives the label 'entailment' twice"),
        ({"entailment": 1.7}, "must be a mapping of label names to output indices"),
        ({"entailment": True}, "must be a mapping of label names to output indices"),
        ({0: "entailment"}, "must be a mapping of label names to output indices"),
    ]:
        with pytest.raises(LabelMapError, match=needle):
            LabelMap.from_mapping(mapping, num_labels=3)


def test_registry_override_reaches_the_model(tiny_model_dir):
    from nli_faith.nli.model import NLIModel

    default = NLIModel(str(tiny_model_dir), device="cpu")
    assert default.label_map.entailment == 1  # from config.id2label
    forced = NLIModel(
        str(tiny_model_dir), device="cpu", label_map={"entailment": 0, "contradiction": 1}
    )
    pairs = [("A cat sat on the mat.", "A cat sat.")]
    raw = default.predict(pairs)
    swapped = forced.predict(pairs)
    assert swapped[0, 0] == pytest.approx(raw[0, 2], abs=1e-6)  # old contradiction column
