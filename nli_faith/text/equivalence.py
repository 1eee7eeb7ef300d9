"""Whether two quantities state the same value: units, scale words, hedges and tolerances.

"72 hours" is "three days", "about 40%" holds 38%, "nearly 40%" does not hold 40.4%.
"""

from __future__ import annotations

from nli_faith.text.quantities import (
    _CALENDAR_FACTORS,
    _DAY,
    APPROX_TOLERANCE,
    CALENDAR_SLACK_DAYS,
    UNIT_TABLE,
    Quantity,
)


def _within(
    claimed: Quantity,
    stated: float,
    claimed_value: float,
    tol: float,
    *,
    stated_hedge: str | None = None,
) -> bool:
    """Does ``stated`` (the context's value) make ``claimed`` true? ``tol``: absolute slack
    of the comparison (months and years against days), in the common unit.

    Two bounds of the same kind state a limit each: "within 30 days" is not made true by
    "within 14 days" (a refund window of 14 days is not one of 30), so they must be equal.
    """
    a, b = claimed_value, stated
    slack = abs(a) * APPROX_TOLERANCE
    exact = abs(a - b) <= tol + 1e-9 * max(abs(a), abs(b), 1.0)
    h = claimed.hedge
    if h in ("below", "above", "min", "max") and stated_hedge == h:
        return exact
    if h == "approx":
        return abs(a - b) <= slack + 1e-9
    if h == "below":
        return a - slack - tol - 1e-9 <= b <= a + tol + 1e-9
    if h == "above":
        return a - tol - 1e-9 <= b <= a + slack + tol + 1e-9
    if h == "min":
        return b >= a - tol - 1e-9
    if h == "max":
        return b <= a + tol + 1e-9
    return exact


def _comparable(q: Quantity, c: Quantity) -> tuple[float, float, float] | None:
    """``(claimed, stated, absolute tolerance)`` in a common unit, or None when they measure
    different things."""
    if q.measured and c.measured:
        if q.dimension != c.dimension:
            return None
        tol = 0.0
        if q.dimension == "time" and q.unit != c.unit:
            if {UNIT_TABLE[q.unit][1], UNIT_TABLE[c.unit][1]} & _CALENDAR_FACTORS:
                tol = CALENDAR_SLACK_DAYS * _DAY  # months and years are not whole days
        return q.base, c.base, tol
    return q.value, c.value, 0.0


def equivalent(claimed: Quantity, stated: Quantity) -> bool:
    """Does the context's ``stated`` quantity make the claim's ``claimed`` one true?

    Same value after units and scale words (72 hours = 3 days, 1.5 million =
    1,500,000, a quarter = 25%); a hedged claim within its tolerance: "about" +/-10%,
    "nearly"/"almost" up to 10% below, "just over" up to 10% above, "over"/"at least"
    any value above, "under"/"up to"/"within" any value below. Names and years
    (``kind`` other than ``"quantity"``) match the same number only.

    Example:
        >>> from nli_faith.text.quantities import extract_quantities
        >>> a, = extract_quantities("nearly 40%"); b, = extract_quantities("39.6%")
        >>> equivalent(a, b), equivalent(b, a)
        (True, False)
    """
    if claimed.kind != "quantity" or stated.kind != "quantity":
        if claimed.kind == "quantity" and claimed.dimension != stated.dimension:
            return False  # "2023%" or "4411 items" is not stated by a year or an ID
        return bool(claimed.number) and claimed.number == stated.number
    pair = _comparable(claimed, stated)
    if pair is None:
        return False
    if not claimed.number and not claimed.hedge and claimed.dimension == "percent":
        return abs(pair[0] - pair[1]) <= 0.5  # "two thirds" = 66.7%, "a third" = 33%
    return _within(claimed, pair[1], pair[0], pair[2], stated_hedge=stated.hedge)


def _supported(q: Quantity, have: tuple[Quantity, ...], have_numbers: frozenset[str]) -> bool:
    if q.number and q.number in have_numbers and not (q.hedge or q.measured):
        # an amount ("4411 items", "2023%") is not stated by an ID or a year that
        # happens to be the same number ("Order #4411", "in 2023"); a number of one or
        # two digits is left alone: names such as "omega-3" or "COVID-19" hold one
        return not (q.kind == "quantity" and q.dimension and len(q.number) > 2) or any(
            c.number == q.number and (c.kind not in ("id", "year") or c.dimension == q.dimension)
            for c in have
        )
    return any(equivalent(q, c) for c in have)


def _differs(q: Quantity, have: tuple[Quantity, ...]) -> bool:
    same = [c for c in have if c.kind == "quantity" and c.dimension == q.dimension]
    if not same:
        return False
    # "300 employees in Germany and 500 in France" states 500 too, without the noun
    if any(c.kind == "quantity" and equivalent(q, c) for c in have):
        return False
    for c in same:
        if c.hedge:  # the context is itself vague: only a clear gap counts
            lo, hi = c.value * (1 - APPROX_TOLERANCE), c.value * (1 + APPROX_TOLERANCE)
            if lo <= q.value <= hi:
                return False
    return True
