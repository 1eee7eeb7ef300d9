"""The mission's edge cases, run through ``FaithfulnessScorer``: pass / fail with the figures.

a. A table-of-contents context against a detailed technical answer: nothing in the
   context supports the details, nothing contradicts them. DeepEval's lenient formula
   calls this faithful; the strict score and the reason must not.
b. The same failure at scale: 20 claims, all "idk".
c. A number swap must be a contradiction, not a near-synonym.
d. A paraphrase must be supported.
e. A summary sentence implied by several separate facts of the context.

A regression suite (``tests/test_suites.py``, marked slow); the quality benchmark reports
it too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

TOC_CONTEXT = (
    "The document contains a section '5.6 Session Management' that describes how user "
    "sessions are handled.\n\n"
    "Table of contents\n"
    "1 Introduction\n"
    "2 Architecture overview\n"
    "3 Authentication\n"
    "3.1 Password policy\n"
    "3.2 Multi-factor authentication\n"
    "4 Authorization\n"
    "5 Security controls\n"
    "5.1 Input validation\n"
    "5.2 Encryption at rest and in transit\n"
    "5.3 Audit logging\n"
    "5.4 Rate limiting\n"
    "5.5 Error handling\n"
    "5.6 Session Management\n"
    "5.7 Key rotation\n"
    "6 Appendix: glossary"
)

TOC_ANSWER = (
    "Session tokens expire after 15 minutes of inactivity. "
    "The absolute lifetime of a session is capped at 8 hours. "
    "Session identifiers are regenerated after every successful login. "
    "Tokens are stored in HttpOnly cookies with the Secure and SameSite=Strict attributes. "
    "Each user may hold at most three concurrent sessions. "
    "Logging out invalidates the session on the server immediately."
)

HANDBOOK_TOC = (
    "Employee Handbook - Table of Contents\n"
    "1. Welcome\n"
    "2. Working hours\n"
    "3. Remote work\n"
    "4. Leave and holidays\n"
    "5. Expenses and travel\n"
    "6. Equipment\n"
    "7. Health and safety\n"
    "8. Code of conduct\n"
    "9. Performance reviews\n"
    "10. Leaving the company"
)

TWENTY_CLAIMS = [
    "Core working hours are from 10 am to 4 pm.",
    "Employees may work remotely up to three days per week.",
    "Remote work requests must be approved by a team lead.",
    "Every employee receives 28 days of paid annual leave.",
    "Unused leave of up to five days can be carried into the next year.",
    "Sick leave requires a doctor's note after three consecutive days.",
    "Parental leave is paid in full for the first 16 weeks.",
    "Expense claims must be submitted within 30 days.",
    "Economy class is required for flights shorter than six hours.",
    "The daily meal allowance on business trips is 45 euros.",
    "New starters receive a laptop and a second monitor.",
    "Employees may keep their phone after two years of service.",
    "A home office allowance of 500 euros is paid once.",
    "Fire drills take place twice a year.",
    "First-aid officers are trained on every floor.",
    "Gifts worth more than 50 euros must be declared.",
    "Performance reviews take place every six months.",
    "Salary adjustments are decided in the March review.",
    "The notice period is three months for permanent staff.",
    "Departing employees have an exit interview with HR.",
]


@dataclass(frozen=True)
class EdgeCase:
    key: str
    title: str
    response: str
    context: str
    criterion: str
    check: Callable[[object], bool]


def _first_verdict(r) -> str | None:
    return r.claims[0].verdict if r.claims else None


CASES = [
    EdgeCase(
        "a",
        "table of contents vs detailed technical answer",
        TOC_ANSWER,
        TOC_CONTEXT,
        "lenient >= 0.9, strict <= 0.2, reason names unsupported claims",
        lambda r: (
            r.lenient is not None
            and r.lenient >= 0.9
            and r.strict <= 0.2
            and "unsupported" in r.reason.lower()
        ),
    ),
    EdgeCase(
        "b",
        "20 claims vs a table of contents (all idk)",
        " ".join(TWENTY_CLAIMS),
        HANDBOOK_TOC,
        "n_idk >= 18 of 20, lenient >= 0.9 (DeepEval's formula forgives it), strict <= 0.1",
        lambda r: r.n_claims == 20 and r.n_idk >= 18 and r.lenient >= 0.9 and r.strict <= 0.1,
    ),
    EdgeCase(
        "c",
        "number swap",
        "The device is covered for a period of thirty-six months.",
        "The device is covered for a period of twenty-four months.",
        "verdict no",
        lambda r: _first_verdict(r) == "no",
    ),
    EdgeCase(
        "d",
        "paraphrase",
        "Shipping is free for orders above fifty dollars.",
        "We provide complimentary delivery on purchases over $50.",
        "verdict yes",
        lambda r: _first_verdict(r) == "yes",
    ),
    EdgeCase(
        "e",
        "summary implied by three separate facts",
        "The premium plan includes storage, support and early access to new features.",
        "The premium plan includes unlimited cloud storage. It also comes with 24/7 phone "
        "support. Premium members get early access to new features before anyone else.",
        "verdict yes",
        lambda r: _first_verdict(r) == "yes",
    ),
]


def run_edge_cases(scorer) -> list[dict]:
    """Score every case; each row holds the figures, the verdicts and pass/fail."""
    rows = []
    for case in CASES:
        r = scorer.score(case.response, case.context)
        rows.append(
            {
                "case": case.key,
                "title": case.title,
                "criterion": case.criterion,
                "passed": bool(case.check(r)),
                "lenient": r.lenient,
                "strict": r.strict,
                "soft": None if r.soft is None else round(r.soft, 4),
                "n_claims": r.n_claims,
                "n_yes": r.n_yes,
                "n_no": r.n_no,
                "n_idk": r.n_idk,
                "verdicts": [c.verdict for c in r.claims],
                "p_entail": [c.p_entail for c in r.claims],
                "p_contradict": [c.p_contradict for c in r.claims],
                "reason": r.reason,
            }
        )
    return rows
