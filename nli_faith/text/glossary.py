"""Abbreviations RAG references use for metrics and companies, and what they stand for.

Financial and product data is written with tickers and metric abbreviations
("MSFT ROE", "EPS", "YoY") while answers spell them out ("Microsoft's return on
equity"). :func:`nli_faith.text.align.align_premise` uses these tables to say in the
premise what the claim says. Tickers whose letters run through the company's name
("AAPL" / "Apple", "MSFT" / "Microsoft") need no entry: the alignment step finds them;
the table holds those it cannot ("GOOGL" / "Alphabet", "KO" / "Coca-Cola").
"""

from __future__ import annotations

__all__ = ["MEASURES", "METRICS", "TICKERS", "measure_of"]

#: Words that name the same measured thing: a quantity of a claim and one of the context
#: measure the same when the words around them fall in one group ("the warranty lasts
#: 36 months" / "the device is covered for a period of 24 months"), not when they only
#: share a unit ("delivery takes 3 days" / "returns are accepted within 30 days").
MEASURES: tuple[frozenset[str], ...] = tuple(
    frozenset(group.split())
    for group in (
        "warranty warranties guarantee guaranteed cover covered coverage covers warranted",
        "last lasts lasting period duration valid validity term",
        "delivery deliver delivered deliveries shipping ship shipped shipment dispatch "
        "dispatched arrive arrives",
        "price prices cost costs fee fees charge charges charged pay paid payment priced",
        "free complimentary",
        "refund refunds refunded reimburse reimbursed reimbursement money-back",
        "return returns returned",
        "salary salaries wage wages pay earn earns income",
        "revenue revenues sales turnover",
        "employee employees staff worker workers headcount personnel",
        "population inhabitants residents people",
        "order orders purchase purchases bought buy",
        "discount discounts off reduction",
        "deadline due within",
    )
)


def measure_of(word: str) -> frozenset[str]:
    """The words naming the same measured thing as ``word`` (empty when none).

    Example:
        >>> "covered" in measure_of("warranty")
        True
    """
    return _MEASURE_INDEX.get(word, frozenset())


_MEASURE_INDEX: dict[str, frozenset[str]] = {}
for _group in MEASURES:
    for _w in _group:
        _MEASURE_INDEX[_w] = _MEASURE_INDEX.get(_w, frozenset()) | _group

#: Metric abbreviation -> the ways it is spelled out (lower case).
METRICS: dict[str, tuple[str, ...]] = {
    "ROE": ("return on equity",),
    "ROA": ("return on assets",),
    "ROI": ("return on investment",),
    "ROIC": ("return on invested capital",),
    "EPS": ("earnings per share",),
    "P/E": ("price-to-earnings ratio", "price to earnings ratio", "price-earnings ratio"),
    "YoY": ("year over year", "year-over-year", "year on year", "year-on-year"),
    "QoQ": ("quarter over quarter", "quarter-over-quarter", "quarter on quarter"),
    "YTD": ("year to date", "year-to-date"),
    "TTM": ("trailing twelve months",),
    "CAGR": ("compound annual growth rate",),
    "EBITDA": ("earnings before interest, taxes, depreciation and amortization",),
    "EBIT": ("earnings before interest and taxes", "operating income"),
    "FCF": ("free cash flow",),
    "COGS": ("cost of goods sold",),
    "OPEX": ("operating expenses",),
    "CAPEX": ("capital expenditure", "capital expenditures"),
    "R&D": ("research and development",),
    "D/E": ("debt-to-equity ratio", "debt to equity ratio", "debt-to-equity"),
    "NIM": ("net interest margin",),
    "AUM": ("assets under management",),
    "ARR": ("annual recurring revenue",),
    "MRR": ("monthly recurring revenue",),
    "ARPU": ("average revenue per user",),
    "MAU": ("monthly active users",),
    "DAU": ("daily active users",),
    "NPS": ("net promoter score",),
    "GDP": ("gross domestic product",),
    "CPI": ("consumer price index",),
    "bps": ("basis points",),
}

#: Tickers the letter rule cannot find -> company names (as written in prose).
TICKERS: dict[str, tuple[str, ...]] = {
    "GOOGL": ("Alphabet", "Google"),
    "GOOG": ("Alphabet", "Google"),
    "META": ("Meta", "Facebook"),
    "KO": ("Coca-Cola",),
    "XOM": ("ExxonMobil", "Exxon Mobil", "Exxon"),
    "BRK": ("Berkshire Hathaway",),
    "BRK.B": ("Berkshire Hathaway",),
    "JPM": ("JPMorgan Chase", "JPMorgan"),
    "PG": ("Procter & Gamble",),
    "T": ("AT&T",),
    "V": ("Visa",),
    "MA": ("Mastercard",),
    "UNH": ("UnitedHealth",),
    "LLY": ("Eli Lilly",),
    "BABA": ("Alibaba",),
    "TSM": ("TSMC", "Taiwan Semiconductor"),
}
