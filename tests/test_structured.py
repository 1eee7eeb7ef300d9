"""Structured data (JSON, tables, CSV, key: value lines) read as sentences with real spans."""

import json

from nli_faith.text.structured import linearise, structured_blocks, structured_statements

AAPL = 'AAPL revenue (USD bn): {"2022": 394.3, "2023": 383.3, "2024": 391.0}'


def _texts(text):
    return [s.text for s in structured_statements(text)]


def test_json_object_after_a_label_reads_as_a_record_and_per_field_statements():
    statements = structured_statements(AAPL)
    assert [s.text for s in statements] == [
        "AAPL revenue: $394.3 billion in 2022; $383.3 billion in 2023; $391.0 billion in 2024.",
        "AAPL revenue: $394.3 billion in 2022.",
        "AAPL revenue: $383.3 billion in 2023.",
        "AAPL revenue: $391.0 billion in 2024.",
    ]
    # the record covers the label and the JSON; each field points at its own member
    assert AAPL[statements[0].start : statements[0].end] == AAPL
    assert [AAPL[s.start : s.end] for s in statements[1:]] == [
        '"2022": 394.3',
        '"2023": 383.3',
        '"2024": 391.0',
    ]
    assert [s.part for s in statements] == [False, True, True, True]


def test_every_statement_span_lies_inside_its_block_for_nested_json():
    doc = "Intro sentence.\n" + json.dumps(
        {"company": {"name": "Acme", "employees": 120, "offices": ["Paris", "Berlin"]}},
        indent=2,
    )
    (block,) = structured_blocks(doc)
    assert block.kind == "json" and doc[block.start :].startswith("{")
    texts = [s.text for s in block.statements]
    assert "company Acme: 120 employees." in texts  # a count reads as one
    assert "company Acme offices: Paris and Berlin." in texts
    for s in block.statements:
        assert block.start <= s.start < s.end <= block.end


def test_arrays_of_objects_are_records_named_by_their_name_field():
    doc = 'Plans: [{"name": "Basic", "price": "$10", "seats": 1}, {"name": "Pro", "price": "$20"}]'
    records = [s.text for s in structured_statements(doc) if not s.part]
    assert records == ["Plans Basic: price $10; 1 seats.", "Plans Pro, price: $20."]


def test_records_as_rag_systems_write_them_are_read_leniently_with_their_spans():
    doc = 'MSFT ROE: {"2022": 47.2%, "2023": 38.8%, }'
    stmts = structured_statements(doc)
    assert [s.text for s in stmts] == [
        "MSFT ROE: 47.2% in 2022; 38.8% in 2023.",
        "MSFT ROE: 47.2% in 2022.",
        "MSFT ROE: 38.8% in 2023.",
    ]
    assert doc[stmts[2].start : stmts[2].end] == '"2023": 38.8%'
    py = "KO dividend (USD): {'2022': 1.76, '2023': 1.84, 'active': True}"
    assert [s.text for s in structured_statements(py) if not s.part] == [
        "KO dividend: $1.76 in 2022; $1.84 in 2023; active yes."
    ]
    yaml = "MSFT:\n  ROE:\n    2022: 47.2%\n    2023: 38.8%\n"
    assert [s.text for s in structured_statements(yaml) if not s.part] == [
        "MSFT ROE: 47.2% in 2022; 38.8% in 2023."
    ]


def test_malformed_json_citations_and_prose_braces_stay_text():
    for text in (
        'Bad: {"a": 1,, "b": 2}',
        "f(x) = {x: x > 0}",
        "Use {name} here and {x}.",
        "See [1] and [1, 2] for details.",
        "The set {a, b} is small.",
        '{"unterminated": [1, 2',
    ):
        assert structured_blocks(text) == ()
        assert linearise(text) == text


def test_markdown_table_rows_are_records_and_header_and_separator_are_not():
    doc = (
        "## Pricing\n\n| Plan | Price (USD) | Seats |\n|------|------:|---|\n"
        "| Pro | 20 | 5 |\n| Team | 50 | 20 |\n\nPrices exclude tax."
    )
    (block,) = structured_blocks(doc)
    assert block.kind == "table"
    records = [s for s in block.statements if not s.part]
    assert [s.text for s in records] == [
        "Pricing Plan Pro: price $20; 5 seats.",
        "Pricing Plan Team: price $50; 20 seats.",
    ]
    assert [doc[s.start : s.end] for s in records] == ["| Pro | 20 | 5 |", "| Team | 50 | 20 |"]
    assert not any("---" in s.text or s.text.startswith("Plan Plan") for s in block.statements)
    assert linearise(
        "| Tier | Annual fee | Lounge visits |\n|---|---|---|\n| Gold | $120 | 4 |"
    ) == ("Tier Gold: annual fee $120; 4 lounge visits.")


def test_a_table_without_separator_row_is_not_a_table():
    assert structured_blocks("| a | b |\n| 1 | 2 |") == ()


def test_html_table_cells_map_to_their_tags():
    doc = (
        "<h3>Fees</h3>\n<table><tr><th>Tier</th><th>Annual fee</th><th>Visits</th></tr>"
        "<tr><td>Gold</td><td>$120</td><td>4</td></tr></table>"
    )
    (block,) = structured_blocks(doc)
    assert block.kind == "html"
    record, fee, visits = block.statements
    assert record.text == "Fees Tier Gold: annual fee $120; 4 visits."
    assert doc[record.start : record.end].startswith("<tr><td>Gold")
    assert doc[fee.start : fee.end] == "<td>$120</td>"
    assert structured_blocks("<table><tr><td>broken") == ()


def test_csv_block_needs_a_header_and_rows_and_prose_with_commas_is_not_csv():
    doc = "Benchmark results\nmodel,accuracy,latency\nbase,0.81,12\nlarge,0.86,40\n"
    (block,) = structured_blocks(doc)
    assert block.kind == "csv"
    assert [s.text for s in block.statements if not s.part] == [
        "Benchmark results model base: accuracy 0.81; latency 12.",
        "Benchmark results model large: accuracy 0.86; latency 40.",
    ]
    prose = (
        "I went to Paris, London, and Rome.\nThen, later, I slept, ate, and read.\n"
        "After, it rained, hard, and long."
    )
    assert structured_blocks(prose) == ()


def test_key_value_lines_under_a_label_form_one_record():
    doc = "Gold tier\nAnnual fee: $120\nLounge visits: 4\n\nNext paragraph."
    assert _texts(doc) == [
        "Gold tier: annual fee $120; 4 lounge visits.",
        "Gold tier, annual fee: $120.",
        "Gold tier: 4 lounge visits.",
    ]
    assert linearise(doc) == "Gold tier: annual fee $120; 4 lounge visits.\n\nNext paragraph."
    # a sentence after a colon, or one line alone, is prose
    assert structured_blocks("Cancellation: Annual plans may be cancelled within 14 days.") == ()
    assert structured_blocks("Note: this is a sentence. And more.\nWarning: do not.") == ()


def test_chunks_carry_the_statement_text_and_the_original_span():
    from nli_faith.text.chunking import chunk_documents

    doc = "Apple reports yearly. " + AAPL + "\nFigures are audited."
    chunks = chunk_documents(
        [doc],
        budget=60,
        count_tokens=lambda texts: [len(t.split()) for t in texts],
        token_offsets=lambda t: [(i, i + 1) for i in range(len(t))],
    )
    by_text = {c.text: c for c in chunks}
    one = by_text["AAPL revenue: $383.3 billion in 2023."]
    assert doc[one.start : one.end] == '"2023": 383.3'
    assert "Apple reports yearly." in by_text and "Figures are audited." in by_text
    # the raw JSON is never a premise, and prose chunks are still verbatim
    assert not any("{" in c.text for c in chunks)
    for c in chunks:
        if "$" not in c.text:
            assert doc[c.start : c.end] == c.text
    # the whole-record statement sits in the windows once; the per-year ones do not
    windows = [c for c in chunks if c.text.startswith("Apple reports yearly. AAPL")]
    assert windows and windows[0].text.count("$383.3") == 1
    assert doc[windows[0].start : windows[0].end].endswith("Figures are audited.")


def test_rows_named_by_a_year_read_in_that_year():
    doc = "| Year | Revenue (USD bn) | Employees |\n|---|---|---|\n| 2023 | 383.3 | 161000 |"
    assert linearise(doc) == "Revenue $383.3 billion in 2023; employees 161000 in 2023."


def test_dialogue_and_faq_lines_are_not_key_value_data():
    for text in (
        "John: I think the meeting is at noon.\nMary: No, it was moved to three.",
        "Q: How long is the warranty?\nA: Two years.",
        "Alice: Are you coming tonight?\nBob: Yes!",
    ):
        assert structured_blocks(text) == (), text


def test_a_two_column_row_statement_spans_the_whole_row():
    """The statement names the row's label as well as its value, so its evidence span is
    the row, not the value cell alone."""
    from nli_faith.text.structured import structured_statements

    table = "| Year | Revenue |\n|---|---|\n| 2022 | $5M |\n| 2023 | $7M |"
    spans = [table[s.start : s.end] for s in structured_statements(table)]
    assert spans == ["| 2022 | $5M |", "| 2023 | $7M |"]
