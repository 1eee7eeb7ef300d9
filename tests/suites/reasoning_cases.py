"""Edge cases of claims that reason over the context, as plain data.

Each case is a dict with the fields of :class:`benchmarks.evidence_cases.EvidenceCase`
(``key``, ``mechanism``, ``title``, ``response``, ``context``, ``verdicts``) and
optionally ``result``: fields the result must have (``{"n_abstentions": 1}``), and
``rules``: for each claim, whether a rule (``ClaimVerdict.rule``) must have decided it
(True), must not have (False), or either (None). Kept as data so the cases can move to
another suite unchanged. Mechanisms:

* ``context-statements``: abstentions, "X is not mentioned", a context statement
  joined to a world claim;
* ``records``: references as RAG systems write them (JSON-like records with units,
  Python reprs, ``key: value`` runs, CSV fragments; tickers and metric abbreviations);
* ``trends``: rises and falls, comparisons, extremes and multiples over a record;
* ``exceptions``, ``aggregates``: a specific statement over the general one; counts;
* ``summaries``: a sentence that sums up several statements, and vague summaries
  against contexts that do not hold what they sum up.
"""

from __future__ import annotations

SLEEP = (
    "Several factors were linked to better sleep in the survey: a fixed bedtime, less "
    "caffeine in the afternoon and regular exercise."
)
SLEEP_STORIES = (
    "Several factors were linked to better sleep in the survey: a fixed bedtime and "
    "watching stories with a parent before bed."
)
MUSEUM = "Tickets cost $15 for adults. The museum is in the old town, next to the cathedral."

CONTEXT_STATEMENTS: list[dict] = [
    {
        "key": "x1",
        "mechanism": "context-statements",
        "title": "an abstention alone: no claim, counted apart, no score",
        "response": "Unable to answer based on the given passages.",
        "context": MUSEUM,
        "verdicts": (),
        "result": {"n_abstentions": 1, "strict": None, "lenient": None},
    },
    {
        "key": "x2",
        "mechanism": "context-statements",
        "title": "an abstention beside a supported claim is left out of both formulas",
        "response": "Tickets cost $15 for adults. The passages do not provide further explanation.",
        "context": MUSEUM,
        "verdicts": ("yes",),
        "result": {"n_abstentions": 1, "strict": 1.0, "lenient": 1.0},
    },
    {
        "key": "x3",
        "mechanism": "context-statements",
        "title": "'X is not mentioned' and no chunk is about X",
        "response": "Watching stories is not mentioned as a factor.",
        "context": SLEEP,
        "verdicts": ("yes",),
        "rules": (True,),
    },
    {
        "key": "x4",
        "mechanism": "context-statements",
        "title": "'X is not mentioned' but a chunk is about X",
        "response": "Watching stories is not mentioned as a factor.",
        "context": SLEEP_STORIES,
        "verdicts": ("no",),
        "rules": (True,),
    },
    {
        "key": "x5",
        "mechanism": "context-statements",
        "title": "'the documents do not mention X', X absent",
        "response": "The documents do not mention a student discount.",
        "context": ["Adults pay $20 per visit.", "Seniors pay $12 per visit."],
        "verdicts": ("yes",),
        "rules": (True,),
    },
    {
        "key": "x6",
        "mechanism": "context-statements",
        "title": "'there is no information about X', X present",
        "response": "There is no information about parking in the documents.",
        "context": ["Free parking is available behind the building.", "Doors open at 8 am."],
        "verdicts": ("no",),
        "rules": (True,),
    },
    {
        "key": "x7",
        "mechanism": "context-statements",
        "title": "context statement joined to a supported world claim: both checked",
        "response": "The context does not list opening hours, but a ticket costs $15.",
        "context": MUSEUM,
        "verdicts": ("yes", "yes"),
        "rules": (True, False),
    },
    {
        "key": "x8",
        "mechanism": "context-statements",
        "title": "guard: a hallucination behind a context preamble is still checked",
        "response": "The passages do not mention refunds, but a ticket costs $40.",
        "context": MUSEUM,
        "verdicts": ("yes", "not-yes"),
        "rules": (True, False),
    },
    {
        "key": "x9",
        "mechanism": "context-statements",
        "title": "guard: a negative claim about the world is no context statement",
        "response": "Meals are not included.",
        "context": "The tour price includes lunch and dinner at local restaurants.",
        "verdicts": ("not-yes",),
        "rules": (False,),
    },
    {
        "key": "x10",
        "mechanism": "context-statements",
        "title": "'the price is not specified' while the context states an amount",
        "response": "The price is not specified in the context.",
        "context": MUSEUM,
        "verdicts": ("no",),
        "rules": (True,),
    },
    {
        "key": "x11",
        "mechanism": "context-statements",
        "title": "world claim first, then the context statement",
        "response": "Tickets cost $15, although the documents do not say whether parking is free.",
        "context": MUSEUM,
        "verdicts": ("yes", "yes"),
        "rules": (False, True),
    },
]

MSFT_ROE = 'MSFT ROE: {"2022": 47.2%, "2023": 38.8%, "2024": 37.1%}'
ORDER = 'Order #4411: {"items": 3, "total": $59.90, "status": "shipped"}'


def _case(key: str, mechanism: str, title: str, response: str, context, verdicts, **kw) -> dict:
    return {"key": key, "mechanism": mechanism, "title": title, "response": response,
            "context": context, "verdicts": verdicts, **kw}  # fmt: skip


RECORDS: list[dict] = [
    _case(
        "r1",
        "records",
        "JSON-like record with % values, ticker and metric abbreviated",
        "Microsoft's return on equity was 38.8% in 2023.",
        MSFT_ROE,
        ("yes",),
    ),
    _case(
        "r2",
        "records",
        "the same record, the value of another year",
        "Microsoft's return on equity was 47.2% in 2023.",
        MSFT_ROE,
        ("not-yes",),
    ),
    _case(
        "r3",
        "records",
        "Python repr with single quotes, a ticker the letters do not give",
        "Coca-Cola paid a dividend of $1.84 per share in 2023.",
        "KO dividend per share (USD): {'2022': 1.76, '2023': 1.84}",
        ("yes",),
    ),
    _case(
        "r4",
        "records",
        "YAML-style nested labels with year keys",
        "Microsoft's ROE was 38.8% in 2023.",
        "MSFT:\n  ROE:\n    2022: 47.2%\n    2023: 38.8%\n",
        ("yes",),
    ),
    _case(
        "r5",
        "records",
        "EPS spelled out in the answer",
        "Alphabet's earnings per share were $5.80 in 2023.",
        'GOOGL EPS (USD): {"2022": 4.56, "2023": 5.80}',
        ("yes",),
    ),
    _case(
        "r6",
        "records",
        "record with an ID in its label: the count is the field's",
        "The order contained 3 items.",
        ORDER,
        ("yes",),
    ),
    _case(
        "r7",
        "records",
        "guard: the order's ID is no count of items",
        "The order contained 4411 items.",
        ORDER,
        ("not-yes",),
    ),
    _case(
        "r8",
        "records",
        "YoY growth record",
        "Revenue grew 12% year over year in 2024.",
        'ACME revenue growth YoY: {"2023": 8%, "2024": 12%}',
        ("yes",),
    ),
    _case(
        "r9",
        "records",
        "abbreviation in the answer, spelled out in the context",
        "MSFT ROE was 37.1% in 2024.",
        "Microsoft's return on equity was 37.1% in 2024.",
        ("yes",),
    ),
    _case(
        "r10",
        "records",
        "guard: a year key is no value",
        "Microsoft's return on equity was 2023%.",
        MSFT_ROE,
        ("not-yes",),
    ),
]

MSFT_CSV = "ticker,year,roe\nMSFT,2023,38.8%\nMSFT,2024,37.1%"
ORDER_CSV = "order_id,items,total\n4411,3,$59.90"

RECORDS += [
    _case("r11", "records", "CSV rows with a year column: the year is the values' period",
          "Microsoft's return on equity was 38.8% in 2023.", MSFT_CSV, ("yes",)),
    _case("r12", "records", "guard: CSV, the value of the other year's row",
          "Microsoft's return on equity was 37.1% in 2023.", MSFT_CSV, ("not-yes",)),
    _case("r13", "records", "CSV fragment: a header and one row",
          "Microsoft's ROE was 38.8% in 2023.", "ticker,year,roe\nMSFT,2023,38.8%", ("yes",)),
    _case("r14", "records", "guard: the year column read as a value",
          "Microsoft's return on equity was 2023%.", MSFT_CSV, ("not-yes",)),
    _case("r15", "records", "CSV fragment with an order ID: the count is the items column's",
          "Order 4411 contains 3 items.", ORDER_CSV, ("yes",)),
    _case("r16", "records", "guard: an order ID is no count of items",
          "The order contains 4411 items.", ORDER_CSV, ("not-yes",)),
]  # fmt: skip

ABB_ROE = 'ABB ROE: {"2022": 21.4%, "2023": 28.6%, "2024": 24.1%}'
SALES = "Online sales were $12 million in 2021, $18 million in 2022 and $24 million in 2023."

TRENDS: list[dict] = [
    _case("tr1", "trends", "fell from X in Y to Z in W, as the record says",
          "ABB's ROE fell from 28.6% in 2023 to 24.1% in 2024.", ABB_ROE, ("yes",),
          rules=(True,)),
    _case("tr2", "trends", "rose from X to Z: the values are right, the direction is not",
          "ABB's ROE rose from 28.6% in 2023 to 24.1% in 2024.", ABB_ROE, ("no",),
          rules=(True,)),
    _case("tr3", "trends", "higher in one year than in another",
          "ABB's return on equity was higher in 2023 than in 2024.", ABB_ROE, ("yes",)),
    _case("tr4", "trends", "the highest year is another one",
          "ABB's ROE was highest in 2024.", ABB_ROE, ("no",)),
    _case("tr5", "trends", "doubled, in prose",
          "Online sales doubled from 2021 to 2023.", SALES, ("yes",)),
    _case("tr6", "trends", "increased by 6 million: a difference of two values",
          "Online sales increased by $6 million from 2022 to 2023.", SALES, ("yes",)),
    _case("tr7", "trends", "rose by about 7 points, hedged",
          "ABB's ROE rose by about 7 points from 2022 to 2023.", ABB_ROE, ("yes",)),
    _case("tr8", "trends", "a wrong start value",
          "Online sales grew from $10 million in 2021 to $24 million in 2023.", SALES,
          ("no",)),
    _case("tr9", "trends", "guard: the years are not values ('from 2022 to 2023' without values)",
          "Online sales rose from 2022 to 2023.", SALES, ("yes",)),
    _case("tr10", "trends", "guard: another company's record decides nothing",
          "Siemens' ROE fell from 28.6% in 2023 to 24.1% in 2024.", ABB_ROE, ("not-yes",),
          rules=(False,)),
]  # fmt: skip

RETURNS = [
    "Returns: Items may be returned within 30 days of delivery.",
    "Exceptions: Electronics have a 14-day return window.",
]
SHIPPING = "Orders over $50 ship free. Premium members get free shipping on all orders over $25."
LIBRARY = "Members can borrow up to 10 books at a time. Gold members can borrow up to 12 books."

EXCEPTIONS: list[dict] = [
    _case("e1", "exceptions", "the rule's bound for the exception's subject",
          "Electronics can be returned within 30 days.", RETURNS, ("not-yes",)),
    _case("e2", "exceptions", "the exception's own bound",
          "Electronics can be returned within 14 days.", RETURNS, ("yes",)),
    _case("e3", "exceptions", "guard: the general rule, stated generally, keeps its support",
          "Items may be returned within 30 days of delivery.", RETURNS, ("yes",),
          rules=(False,)),
    _case("e4", "exceptions", "a tier with another threshold: the general one is not support",
          "Premium members get free shipping on orders over $50.", SHIPPING, ("not-yes",)),
    _case("e5", "exceptions", "the tier's own threshold",
          "Premium members get free shipping on orders over $25.", SHIPPING, ("yes",)),
    _case("e6", "exceptions", "a named tier's limit differs from the members' limit",
          "Gold members can borrow 10 books at a time.", LIBRARY, ("not-yes",)),
    _case("e7", "exceptions", "guard: a statement about another predicate does not override",
          "Electronics ship within 3 days.",
          ["Orders ship within 3 days.", "Exceptions: Electronics have a 14-day return window."],
          ("yes",), rules=(False,)),
    _case("e8", "exceptions", "a model year is a name, not a value: its own warranty decides",
          "The 2024 model has a 2-year warranty.",
          "All models come with a 2-year warranty. The 2024 model comes with a 3-year warranty.",
          ("not-yes",)),
    _case("e9", "exceptions", "guard: the general members' limit, stated as such",
          "Members can borrow up to 10 books at a time.", LIBRARY, ("yes",), rules=(False,)),
    _case("e10", "exceptions", "an exception by negation",
          "Sale items can be returned within 30 days.",
          ["Items may be returned within 30 days.", "Sale items cannot be returned."],
          ("not-yes",)),
    _case("e11", "exceptions", "guard: an exact count above a claim's lower bound agrees",
          "In the northern village, rescuers recovered more than 100 bodies.",
          "Rescuers searched the whole valley for a week. In the northern village, rescuers "
          "recovered 116 bodies.", ("yes",)),
    _case("e12", "exceptions", "a tier's own lower bound is not another tier's",
          "Premium members get free shipping on orders over $40.", SHIPPING, ("not-yes",)),
]  # fmt: skip

TRIALS = [
    "The first trial found a 10% reduction in blood pressure.",
    "The second trial found a 7% reduction in blood pressure.",
]
HOSPITALS = "Patients were recruited at the Oslo, Bergen and Tromso hospitals."

AGGREGATES: list[dict] = [
    _case("g1", "aggregates", "three trials claimed, two described",
          "The three trials all showed a reduction in blood pressure.", TRIALS, ("no",),
          rules=(True,)),
    _case("g2", "aggregates", "both trials, two described",
          "Both trials showed a reduction in blood pressure.", TRIALS, ("yes",),
          rules=(False,)),
    _case("g3", "aggregates", "'both' when three are described",
          "Both trials showed a reduction in blood pressure.",
          TRIALS + ["The third trial found no change in blood pressure."], ("no",),
          rules=(True,)),
    _case("g4", "aggregates", "four hospitals claimed, three named",
          "Patients were recruited at four hospitals.", HOSPITALS, ("no",), rules=(True,)),
    _case("g5", "aggregates", "three hospitals claimed, three named",
          "Patients were recruited at three hospitals.", HOSPITALS, ("yes",)),
    _case("g6", "aggregates", "guard: a label is no count ('Trial 3')",
          "Trial 3 showed a reduction in blood pressure.",
          "Trial 1 showed no change. Trial 3 showed a reduction in blood pressure.", ("yes",),
          rules=(False,)),
    _case("g7", "aggregates", "guard: the context states the count itself",
          "All five members voted in favour.",
          "The committee has five members. Every member voted in favour.", ("not-no",),
          rules=(False,)),
    _case("g8", "aggregates", "none of three branches, two named",
          "None of the three branches reported losses.",
          "The Lisbon branch and the Porto branch both reported profits.", ("no",),
          rules=(True,)),
    _case("g9", "aggregates", "four studies claimed, studies A and B described",
          "All four studies found the same effect.",
          "Study A and Study B found the same effect on sleep.", ("no",), rules=(True,)),
    _case("g10", "aggregates", "guard: a year before the noun is no count",
          "The 2021 trials showed a reduction in blood pressure.", TRIALS, ("not-yes",),
          rules=(False,)),
]  # fmt: skip

NETWORK = [
    "When a phone registers, the radio network element forwards its request to the core.",
    "The AMF is the network element that handles registration and mobility.",
    "Another network element, the AUSF, checks the subscriber's credentials.",
    "The SMF, a third network element, sets up the data session once the checks succeed.",
]
BAKERY = (
    "The bakery opens at 7 am. Sourdough is baked every morning. The cafe serves coffee until noon."
)
ONBOARDING = (
    "Onboarding starts with HR, which prepares the contract. In the second step of onboarding, "
    "the IT team sets up the laptop. The last onboarding step is a meeting with the team lead."
)
KIT = (
    "The starter kit contains a fast charger. It also has a leather case. Kit buyers get a "
    "screen protector as well."
)
COOPERATION = (
    "The whole process involves close cooperation among several network elements, "
    "each with its own role."
)

SUMMARIES: list[dict] = [
    _case("sm1", "summaries", "a vague summary of four statements that hold its words",
          COOPERATION, NETWORK, ("yes",), rules=(True,)),
    _case("sm2", "summaries", "guard: the same vague summary against an unrelated context",
          COOPERATION, BAKERY, ("not-yes",), rules=(False,)),
    _case("sm3", "summaries", "guard: one statement about a network element is no summary",
          COOPERATION,
          ["The AMF is the network element that handles registration.", BAKERY],
          ("not-yes",), rules=(False,)),
    _case("sm4", "summaries", "several steps, each with its own team, over three sentences",
          "The onboarding involves several steps, each with its own team.", ONBOARDING,
          ("yes",), rules=(True,)),
    _case("sm5", "summaries", "a summary adding what no statement says (finance approval)",
          "The whole onboarding process involves several steps, each approved by the finance "
          "team.", ONBOARDING, ("not-yes",), rules=(False,)),
    _case("sm6", "summaries", "guard: 'a single' element is no summary of several",
          "The whole process is handled by a single network element.", NETWORK,
          ("not-yes",), rules=(False,)),
    _case("sm7", "summaries", "a list over three sentences, the second led by 'It'",
          "The starter kit includes a charger, a case and a screen protector.", KIT, ("yes",)),
    _case("sm8", "summaries", "a list with an item no statement holds",
          "The starter kit includes a charger, a case and a pair of headphones.", KIT,
          ("not-yes",), rules=(False,)),
    _case("sm9", "summaries", "guard: a list whose items belong to another plan",
          "The basic plan includes storage, phone support and early access to new features.",
          ["The basic plan includes 20 GB of storage.",
           "The family plan adds phone support and early access to new features."],
          ("not-yes",), rules=(False,)),
    _case("sm10", "summaries", "guard: 'both' does not distribute what two statements split",
          "Both offices have a gym and a canteen.",
          ["The Oslo office has a gym.", "The Bergen office has a canteen."], ("not-yes",),
          rules=(False,)),
]  # fmt: skip

REASONING_CASES: list[dict] = (
    CONTEXT_STATEMENTS + RECORDS + TRENDS + EXCEPTIONS + AGGREGATES + SUMMARIES
)
