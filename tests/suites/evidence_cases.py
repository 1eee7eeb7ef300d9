"""Evidence edge cases: RAG contexts as they really look, with expected verdicts.

A regression suite: ``tests/test_suites.py`` runs every case with the bundled
model (marked slow); ``python -m benchmarks run evidence_cases`` writes the full table to
``benchmarks/results/``. To add a case, append an :class:`EvidenceCase` to ``CASES``.

Mechanisms covered (``EvidenceCase.mechanism``):

* ``composite``: support spread over sentences or documents (and the guards: a rule
  and its exception, sentences about different things must stay not-``yes``);
* ``structured``: JSON, ``key: value`` lines, Markdown / HTML tables, CSV in the context;
* ``web``: web and Markdown text with one item per line and no final punctuation;
* ``numbers``: the same number stated another way, a different value, IDs and names;
* ``answer-table``: a Markdown table in the response (a header row is no claim);
* ``citations``: ``[1]`` / ``(Source 2)`` markers checked against the documents.
* claims that reason over the context (:mod:`tests.suites.reasoning_cases`, kept as data):
  ``context-statements``, ``records``, ``trends``...

Every case states the verdict expected of each claim, in order (``"not-yes"`` accepts
``no`` or ``idk``), and optionally the citation status of each claim and a check of
its own (``"not-no"`` accepts ``yes`` or ``idk``). The quality benchmark runs the suite
too. The runner reads new result fields with ``getattr`` so that it also runs against an
older checkout of the library.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .reasoning_cases import REASONING_CASES

MECHANISMS = (
    "composite",
    "structured",
    "web",
    "numbers",
    "answer-table",
    "citations",
    *dict.fromkeys(c["mechanism"] for c in REASONING_CASES),
)

REFUND_DOCS = [
    "Cancellation: Annual plans may be cancelled within 14 days of purchase.",
    "Refunds: Cancelled plans receive a full refund of the amount paid.",
]
AAPL = 'AAPL revenue (USD bn): {"2022": 394.3, "2023": 383.3, "2024": 391.0}'
TSLA = 'TSLA deliveries (millions): {"2022": 1.31, "2023": 1.81}'
TIERS_MD = (
    "Card tiers\n\n"
    "| Tier | Annual fee | Lounge visits |\n"
    "|---|---|---|\n"
    "| Gold | $120 | 4 |\n"
    "| Silver | $60 | 2 |\n"
)
HOURS_WEB = (
    "Opening hours\n"
    "Monday to Friday 9 am to 6 pm\n"
    "Saturday 10 am to 2 pm\n"
    "Sunday closed\n"
    "Contact us\n"
    "Call 555-0100 for appointments"
)
SHOP_WEB = (
    "## Returns\n"
    "Items can be returned within 30 days of delivery\n"
    "Refunds are issued to the original payment method\n"
    "## Shipping\n"
    "Orders ship within 2 business days\n"
    "Standard delivery takes 3 to 5 days\n"
    "## Support\n"
    "Chat support is available around the clock"
)
MENU_WEB = "\n".join(
    ["home", "products", "pricing", "blog", "careers", "about us", "log in", "sign up"]
    + [f"read how a team of {k + 2} people saved time with our planner" for k in range(1, 25)]
    + [
        "our headquarters are in Lisbon",
        "the company was founded in 2016",
        "we employ 85 people across four countries",
        "privacy",
        "terms",
        "cookie settings",
    ]
)
SPECS_WEB = (
    "Product details\nweight 1.2 kg\nbattery up to 12 hours\nscreen 14 inch\nwarranty two years"
)


@dataclass(frozen=True)
class EvidenceCase:
    key: str
    mechanism: str
    title: str
    response: str
    context: str | list[str]
    #: Expected verdict of each claim, in order: "yes", "no", "idk", "not-yes" or "not-no".
    verdicts: tuple[str, ...]
    #: Expected citation status of each claim (None: the claim cites nothing).
    citations: tuple[str | None, ...] | None = None
    #: Any other condition on the result (and the warnings logged while scoring).
    check: Callable[[object, list[str]], bool] | None = field(default=None, repr=False)
    criterion: str = ""


def _spans(r) -> list:
    ev = r.claims[0].evidence if r.claims else None
    return list(getattr(ev, "spans", None) or [])


def _no_warning(_r, warnings: list[str]) -> bool:
    return not warnings


def _no_pipe_claim(r, _w) -> bool:
    return all("|" not in c.claim and "---" not in c.claim for c in r.claims)


C = EvidenceCase
CASES: list[EvidenceCase] = [
    # -- 1. composite premises ---------------------------------------------------------------
    C(
        "c1",
        "composite",
        "refund rule split across two documents",
        "Annual plans can be cancelled within 14 days for a full refund.",
        REFUND_DOCS,
        ("yes",),
        check=lambda r, _w: {s.doc_index for s in _spans(r)} == {0, 1},
        criterion="evidence spans both documents",
    ),
    C(
        "c2",
        "composite",
        "a claim summing up one sentence per team",
        "Releasing a new version takes work from three teams: design, engineering and QA.",
        [
            "The design team prepares the mockups for every release.",
            "The engineering team implements the features of each release.",
            "The QA team tests each release before it ships.",
        ],
        ("yes",),
    ),
    C(
        "c3",
        "composite",
        "guard: general rule in one document, exception in another",
        "Annual plans bought with a discount code can be cancelled within 14 days for a "
        "full refund.",
        [
            "Annual plans can be cancelled within 14 days for a full refund.",
            "Exception: annual plans bought with a discount code are not refundable.",
        ],
        ("not-yes",),
    ),
    C(
        "c4",
        "composite",
        "guard: two sentences about different people",
        "Alice joined the company in 2019 and leads the data team.",
        ["Alice joined the company in 2019.", "Bob leads the data team."],
        ("not-yes",),
    ),
    C(
        "c5",
        "composite",
        "guard: two offices' facts are not one office's",
        "The Berlin office opened in 2015 and has 40 employees.",
        ["The Berlin office opened in 2015.", "The Paris office has 40 employees."],
        ("not-yes",),
    ),
    C(
        "c6",
        "composite",
        "opening and closing time in two documents",
        "The museum is open from 9 am to 5 pm.",
        ["The museum opens at 9 am on weekdays.", "The museum closes at 5 pm."],
        ("yes",),
    ),
    C(
        "c7",
        "composite",
        "guard: staff rule and contractor exception",
        "Contractors get 25 days of paid leave per year.",
        [
            "Employees get 25 days of paid leave per year.",
            "Contractors are not entitled to paid leave.",
        ],
        ("not-yes",),
    ),
    C(
        "c8",
        "composite",
        "two facts far apart in one long document",
        "The bridge opened in 1932 and carries eight lanes of traffic.",
        "The bridge opened in 1932 after six years of construction. Its towers rise 134 "
        "metres above the harbour. The steel arch was assembled from both shores. Painting "
        "the structure is a continuous job for a crew of workers. Pedestrians can climb "
        "the arch on guided tours. Today the bridge carries eight lanes of traffic.",
        ("yes",),
    ),
    C(
        "c9",
        "composite",
        "laptop weight and screen in two spec sheets",
        "The X200 laptop weighs 1.2 kg and has a 14-inch screen.",
        ["The X200 laptop weighs 1.2 kg.", "The X200 laptop has a 14-inch screen."],
        ("yes",),
    ),
    C(
        "c10",
        "composite",
        "guard: Pro price, Basic storage",
        "The Pro plan costs 20 dollars per month and includes 10 GB of storage.",
        ["The Pro plan costs 20 dollars per month.", "The Basic plan includes 10 GB of storage."],
        ("not-yes",),
    ),
    C(
        "c11",
        "composite",
        "composite with a wrong number stays unsupported",
        "Annual plans can be cancelled within 30 days for a full refund.",
        REFUND_DOCS,
        ("not-yes",),
    ),
    # -- 2. structured context -----------------------------------------------------------------
    C(
        "s1",
        "structured",
        "JSON object of yearly revenue",
        "Apple's revenue was 383.3 billion dollars in 2023.",
        AAPL,
        ("yes",),
    ),
    C(
        "s2",
        "structured",
        "JSON deliveries, a claim over two years",
        "Tesla's deliveries rose from 1.31 million in 2022 to 1.81 million in 2023.",
        TSLA,
        ("yes",),
    ),
    C(
        "s3",
        "structured",
        "JSON value of another year",
        "Apple's revenue was 394.3 billion dollars in 2023.",
        AAPL,
        ("not-yes",),
    ),
    C(
        "s4",
        "structured",
        "Markdown table row",
        "The Gold tier has an annual fee of $120.",
        TIERS_MD,
        ("yes",),
    ),
    C(
        "s5",
        "structured",
        "Markdown table, value of the other row",
        "The Silver tier includes 4 lounge visits.",
        TIERS_MD,
        ("not-yes",),
    ),
    C(
        "s6",
        "structured",
        "key: value lines",
        "The battery lasts 12 hours.",
        "Model: X200\nBattery life: 12 hours\nWeight: 1.2 kg\nPorts: 2 USB-C",
        ("yes",),
    ),
    C(
        "s7",
        "structured",
        "HTML table",
        "Oslo has a population of 709,000.",
        "<table><tr><th>City</th><th>Population</th></tr>"
        "<tr><td>Oslo</td><td>709,000</td></tr><tr><td>Bergen</td><td>291,000</td></tr></table>",
        ("yes",),
    ),
    C(
        "s8",
        "structured",
        "CSV block",
        "The capital of Spain is Madrid.",
        "country,capital,population (m)\nFrance,Paris,68\nSpain,Madrid,48\nItaly,Rome,59",
        ("yes",),
    ),
    C(
        "s9",
        "structured",
        "malformed JSON stays text, no error",
        "Revenue was 383.3 billion dollars in 2023.",
        'Revenue (USD bn): {"2022": 394.3, "2023": 383.3, "2024": ',
        ("yes",),
        check=lambda r, _w: getattr(r, "error", None) is None,
        criterion="no error",
    ),
    # -- 3. web segmentation ----------------------------------------------------------------
    C(
        "w1",
        "web",
        "opening hours, one line each",
        "The shop is closed on Sundays.",
        HOURS_WEB,
        ("yes",),
        check=_no_warning,
        criterion="no warning",
    ),
    C(
        "w2",
        "web",
        "Markdown headings and unpunctuated lines",
        "Orders ship within 2 business days.",
        SHOP_WEB,
        ("yes",),
        check=_no_warning,
        criterion="no warning",
    ),
    C(
        "w3",
        "web",
        "unpunctuated line with another value",
        "Orders ship within 5 business days.",
        SHOP_WEB,
        ("not-yes",),
    ),
    C(
        "w4",
        "web",
        "scraped page: menu, 24 story lines, footer",
        "The company was founded in 2016.",
        MENU_WEB,
        ("yes",),
        check=_no_warning,
        criterion="no warning (no over-long sentence, no tokenizer length warning)",
    ),
    C(
        "w5",
        "web",
        "scraped page: a line far down the page",
        "The company has 85 employees.",
        MENU_WEB,
        ("yes",),
        check=_no_warning,
        criterion="no warning",
    ),
    C(
        "w6",
        "web",
        "bulleted list without punctuation",
        "The premium plan includes priority support.",
        "Premium plan features\n- Unlimited projects\n- Priority support\n- Custom domains\n"
        "- Daily backups",
        ("yes",),
    ),
    C(
        "w7",
        "web",
        "lower-case spec lines",
        "The battery lasts up to 12 hours.",
        SPECS_WEB,
        ("yes",),
    ),
    C(
        "w8",
        "web",
        "lower-case spec lines, another value",
        "The screen measures 15 inches.",
        SPECS_WEB,
        ("not-yes",),
    ),
    # -- 4. numbers -----------------------------------------------------------------------------
    C(
        "n1",
        "numbers",
        "nearly 40% vs 39.6%",
        "Nearly 40% of users renewed.",
        "39.6% of users renewed their subscription.",
        ("yes",),
    ),
    C(
        "n2",
        "numbers",
        "three days vs 72 hours",
        "Refunds are processed within three days.",
        "Refunds are processed within 72 hours.",
        ("yes",),
    ),
    C(
        "n3",
        "numbers",
        "a quarter vs 25%",
        "A quarter of the staff work remotely.",
        "25% of the staff work remotely.",
        ("yes",),
    ),
    C(
        "n4",
        "numbers",
        "half vs 50%",
        "Half of the budget goes to research.",
        "50% of the budget goes to research.",
        ("yes",),
    ),
    C(
        "n5",
        "numbers",
        "18 months vs 1.5 years",
        "The warranty lasts 18 months.",
        "The warranty lasts 1.5 years.",
        ("yes",),
    ),
    C(
        "n6",
        "numbers",
        "1.5 million vs 1,500,000",
        "The city has 1.5 million residents.",
        "The city has 1,500,000 residents.",
        ("yes",),
    ),
    C(
        "n7",
        "numbers",
        "$20 vs 20 dollars",
        "The Pro plan costs $20 per month.",
        "The Pro plan costs 20 dollars per month.",
        ("yes",),
    ),
    C(
        "n8",
        "numbers",
        "same quantity, different value",
        "The battery lasts 10 hours.",
        "The battery lasts 12 hours.",
        ("no",),
    ),
    C(
        "n9",
        "numbers",
        "about 200 vs 197",
        "The company has about 200 employees.",
        "The company has 197 employees.",
        ("yes",),
    ),
    C(
        "n10",
        "numbers",
        "about 200 vs 150 (outside the tolerance)",
        "The company has about 200 employees.",
        "The company has 150 employees.",
        ("not-yes",),
    ),
    C(
        "n11",
        "numbers",
        "over 1,000 vs 1,240",
        "Over 1,000 customers signed up.",
        "1,240 customers signed up.",
        ("yes",),
    ),
    C(
        "n12",
        "numbers",
        "a product name's number is no quantity",
        "The iPhone 15 has a 6.1-inch display.",
        "The iPhone 15 features a 6.1-inch display.",
        ("yes",),
    ),
    C(
        "n13",
        "numbers",
        "an ID is no quantity: another ID's figure does not contradict",
        "Ticket INC-2041 was resolved within 4 hours.",
        "Ticket INC-2041 was resolved within 4 hours. Ticket INC-2042 is still open after 9 hours.",
        ("yes",),
    ),
    C(
        "n14",
        "numbers",
        "section numbers and list markers are no quantities",
        "Section 4 covers data retention.",
        "3. Access control\n4. Data retention\n5. Incident response",
        ("not-yes",),
        check=lambda r, _w: all(c.verdict != "no" for c in r.claims),
        criterion="never no",
    ),
    C(
        "n15",
        "numbers",
        "a value stated for another year, in prose (added after the attribution rule)",
        "The firm hired 300 people in 2023.",
        "In 2022 the firm hired 300 people. In 2023 it hired 500 people.",
        ("not-yes",),
    ),
    C(
        "n16",
        "numbers",
        "guard: a year elsewhere in the context does not take the value away",
        "The company had 300 employees by 2005.",
        "The company was founded in 1998. It had 300 employees by 2005, and 450 by 2010.",
        ("yes",),
    ),
    C(
        "n17",
        "numbers",
        "a value of another line of a price list (added after the attribution rule)",
        "The basic plan costs $15 per month.",
        "Pricing\nBasic plan $9 per month\nPro plan $15 per month\nTeam plan $40 per month",
        ("not-yes",),
    ),
    # -- 4b. a table in the answer ------------------------------------------------------------
    C(
        "t1",
        "answer-table",
        "Markdown table in the answer: rows are claims, the header is not",
        "| Plan | Price |\n|---|---|\n| Basic | $10 |\n| Pro | $20 |",
        "The Basic plan costs $10 per month. The Pro plan costs $20 per month.",
        ("yes", "yes"),
        check=_no_pipe_claim,
        criterion="no claim holds a pipe or a separator row",
    ),
    C(
        "t2",
        "answer-table",
        "Markdown table in the answer with a wrong row",
        "Prices:\n\n| Plan | Price |\n|---|---|\n| Basic | $10 |\n| Pro | $25 |",
        "The Basic plan costs $10 per month. The Pro plan costs $20 per month.",
        ("yes", "not-yes"),
        check=_no_pipe_claim,
        criterion="no claim holds a pipe or a separator row",
    ),
    # -- 5. citations -------------------------------------------------------------------------
    C(
        "k1",
        "citations",
        "citation to the supporting document",
        "The warranty lasts two years [1].",
        ["The warranty lasts two years.", "Shipping takes five days."],
        ("yes",),
        citations=("supported",),
        check=lambda r, _w: "[1]" not in r.claims[0].claim,
        criterion="marker out of the claim text",
    ),
    C(
        "k2",
        "citations",
        "misattributed citation",
        "The warranty lasts two years [2].",
        ["The warranty lasts two years.", "Shipping takes five days."],
        ("yes",),
        citations=("misattributed",),
        check=lambda r, _w: getattr(r, "n_misattributed", None) == 1,
        criterion="summary counts 1 misattributed",
    ),
    C(
        "k3",
        "citations",
        "cited claim nothing supports",
        "Returns are accepted for 90 days [1].",
        ["The warranty lasts two years.", "Shipping takes five days."],
        ("not-yes",),
        citations=("unsupported",),
    ),
    C(
        "k4",
        "citations",
        "(Source 2) markers",
        "Shipping takes five days (Source 2). The warranty lasts two years (Source 2).",
        ["The warranty lasts two years.", "Shipping takes five days."],
        ("yes", "yes"),
        citations=("supported", "misattributed"),
        check=lambda r, _w: all("Source" not in c.claim for c in r.claims),
        criterion="markers out of the claim text",
    ),
    C(
        "k5",
        "citations",
        "no markers: no citation fields",
        "The warranty lasts two years.",
        ["The warranty lasts two years.", "Shipping takes five days."],
        ("yes",),
        citations=(None,),
        check=lambda r, _w: getattr(r, "n_misattributed", None) is None,
        criterion="n_misattributed is None",
    ),
    C(
        "k6",
        "citations",
        "one claim citing two documents that together support it",
        "Annual plans can be cancelled within 14 days for a full refund [1, 2].",
        REFUND_DOCS,
        ("yes",),
        citations=("supported",),
    ),
    C(
        "k7",
        "citations",
        "range marker [2-3] over the right documents",
        "Shipping takes five days [2-3].",
        ["The warranty lasts two years.", "Shipping takes five days.", "Returns are free."],
        ("yes",),
        citations=("supported",),
    ),
]


def _data_check(result: dict, rules: tuple) -> Callable[[object, list[str]], bool]:
    """The check of a data case: result fields, and which claims a rule decided."""

    def check(r, _w) -> bool:
        fields = all(getattr(r, k) == v for k, v in result.items())
        ruled = all(
            want is None or (getattr(c, "rule", None) is not None) == want
            for c, want in zip(r.claims, rules)
        )
        return fields and ruled

    return check


def _from_data(d: dict) -> EvidenceCase:
    result, rules = d.get("result", {}), tuple(d.get("rules", ()))
    crit = ", ".join(
        [f"{k} == {v!r}" for k, v in result.items()]
        + ([f"decided by rule: {list(rules)}"] if rules else [])
    )
    fields = {k: v for k, v in d.items() if k not in ("result", "rules")}
    check = _data_check(result, rules) if (result or rules) else None
    return EvidenceCase(**fields, check=check, criterion=crit)


CASES.extend(_from_data(d) for d in REASONING_CASES)

# -- running ---------------------------------------------------------------------------------


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _verdict_ok(expected: str, got: str) -> bool:
    if expected in ("not-yes", "not-no"):
        return got != expected[4:]
    return got == expected


def evaluate(case: EvidenceCase, r, warnings: list[str]) -> tuple[bool, list[str]]:
    """Pass / fail of one case, and what failed."""
    problems = []
    got = [c.verdict for c in r.claims]
    if getattr(r, "error", None) is not None:
        problems.append(f"error: {r.error}")
    if len(got) != len(case.verdicts) or not all(
        _verdict_ok(e, g) for e, g in zip(case.verdicts, got)
    ):
        problems.append(f"verdicts {got}, expected {list(case.verdicts)}")
    if case.citations is not None:
        cites = [getattr(c, "citation", None) for c in r.claims]
        if cites != list(case.citations):
            problems.append(f"citations {cites}, expected {list(case.citations)}")
    if case.check is not None and not problems:
        try:
            ok = case.check(r, warnings)
        except Exception as err:  # an old result type lacks a field: the case fails
            ok = False
            problems.append(f"check raised {type(err).__name__}: {err}")
        if not ok and case.criterion:
            problems.append(f"failed: {case.criterion}")
        elif not ok:
            problems.append("failed its check")
    return not problems, problems


def run_evidence_cases(scorer, cases: Sequence[EvidenceCase] = CASES) -> list[dict]:
    """Score every case; each row holds the verdicts, pass / fail and what failed."""
    handler = _Collect()
    loggers = [logging.getLogger("nli_faith"), logging.getLogger("transformers")]
    watched = loggers + [logging.getLogger("nli_faith.text.chunking")]
    levels = [lg.level for lg in watched]
    for lg in watched:  # a caller may have silenced them (the quality benchmark does)
        lg.setLevel(logging.WARNING)
    for lg in loggers:
        lg.addHandler(handler)
    rows = []
    try:
        for case in cases:
            handler.messages = []
            t0 = time.perf_counter()
            r = scorer.score(case.response, case.context)
            ms = (time.perf_counter() - t0) * 1000
            passed, problems = evaluate(case, r, list(handler.messages))
            rows.append(
                {
                    "case": case.key,
                    "mechanism": case.mechanism,
                    "title": case.title,
                    "expected": list(case.verdicts),
                    "expected_citations": None if case.citations is None else list(case.citations),
                    "criterion": case.criterion,
                    "passed": passed,
                    "problems": problems,
                    "verdicts": [c.verdict for c in r.claims],
                    "claims": [c.claim for c in r.claims],
                    "p_entail": [c.p_entail for c in r.claims],
                    "p_contradict": [c.p_contradict for c in r.claims],
                    "citations": [getattr(c, "citation", None) for c in r.claims],
                    "evidence_spans": [
                        len(getattr(c.evidence, "spans", None) or []) if c.evidence else 0
                        for c in r.claims
                    ],
                    "warnings": list(handler.messages),
                    "ms": round(ms, 1),
                }
            )
    finally:
        for lg in loggers:
            lg.removeHandler(handler)
        for lg, level in zip(watched, levels):
            lg.setLevel(level)
    return rows


def summarize(rows: Sequence[dict]) -> dict:
    """Pass counts overall and per mechanism."""
    per = {}
    for m in MECHANISMS:
        sel = [r for r in rows if r["mechanism"] == m]
        per[m] = {"passed": sum(r["passed"] for r in sel), "n": len(sel)}
    return {"passed": sum(r["passed"] for r in rows), "n": len(rows), "per_mechanism": per}


def render_markdown(rows: Sequence[dict], *, title: str = "Evidence edge cases") -> str:
    s = summarize(rows)
    lines = [
        f"## {title}",
        "",
        f"**{s['passed']} / {s['n']} passed.** "
        + ", ".join(f"{m} {v['passed']}/{v['n']}" for m, v in s["per_mechanism"].items()),
        "",
        "| case | mechanism | title | expected | got (P(e), P(c)) | result |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        got = ", ".join(
            f"{v} ({e:.2f}, {c:.2f})"
            for v, e, c in zip(r["verdicts"], r["p_entail"], r["p_contradict"])
        )
        if any(r["citations"]):
            got += "; citations " + ", ".join(str(c) for c in r["citations"])
        exp = ", ".join(r["expected"])
        if r["expected_citations"] is not None:
            exp += "; citations " + ", ".join(str(c) for c in r["expected_citations"])
        res = "pass" if r["passed"] else "**FAIL**: " + "; ".join(r["problems"])
        lines.append(f"| {r['case']} | {r['mechanism']} | {r['title']} | {exp} | {got} | {res} |")
    return "\n".join(lines) + "\n"
