"""What ``nli-faith serve`` is told at start-up: limits, batching, policy, auth, logging.

One frozen dataclass, :class:`ServeSettings`, built by the CLI from its flags (or from the
JSON in :data:`SETTINGS_ENV` in each worker process of ``--workers N``) and handed to the
endpoints through a FastAPI dependency (:func:`nli_faith.serve.app.get_settings`).

Example:
    >>> s = ServeSettings(policy=Policy(block_on_contradiction=True))
    >>> ServeSettings.from_json(s.to_json()) == s
    True
    >>> s.limits.max_claims
    64
"""

from __future__ import annotations

import ipaddress
import json
from dataclasses import InitVar, asdict, dataclass, field
from typing import Literal

from nli_faith.config import ScorerConfig
from nli_faith.records import Limits
from nli_faith.results import FaithfulnessResult
from nli_faith.scoring.gate import Policy as GatePolicy

#: Environment variable holding the settings for ``--workers N`` worker processes.
SETTINGS_ENV = "NLI_FAITH_SERVE_SETTINGS"

#: The service's own, tighter defaults for one record (the library's are for batch jobs):
#: an answer of ~1,500 words, ~25k tokens of context, 50 documents, 64 claims.
SERVE_LIMITS = Limits(
    max_response_chars=10_000,
    max_context_chars=100_000,
    max_documents=50,
    max_claims=64,
)

#: What the policy does with a scored record (the reply's ``decision``).
Action = Literal["pass", "block"]


class Policy(GatePolicy):
    """How a scored record becomes ``"pass"`` or ``"block"``: the one gate's rule
    (:class:`~nli_faith.scoring.gate.Policy`).

    ``block_below_strict``: block when the strict score (supported claims / claims) is
    below it. ``block_on_contradiction``: block when any claim is contradicted. A response
    checked against an empty context is always blocked; otherwise one with no verifiable
    claim (scores ``None``) passes, and with neither rule everything passes.

    Example:
        >>> from nli_faith.results import FaithfulnessResult
        >>> r = FaithfulnessResult(0.5, 0.5, 0.4, 2, 1, 1, 0, "...")
        >>> Policy(block_on_contradiction=True).decide(r), Policy(block_below_strict=0.5).decide(r)
        ('block', 'pass')
    """

    def decide(self, result: FaithfulnessResult) -> Action | None:
        """``None`` for a record that could not be scored (it has an ``error``)."""
        ruling = self.ruling(result)
        if ruling.why == "not_scored":
            return None
        return "block" if ruling.passed is False else "pass"


@dataclass(frozen=True)
class ServeSettings:
    """Everything the service needs besides the scorer.

    Attributes:
        host, port: where uvicorn listens (loopback by default).
        max_body_bytes: largest request body (413).
        max_batch_records: most records in one ``/v1/score/batch`` request (422).
        max_batch_pairs: the batcher runs the model once this many (claim, chunk) pairs
            are waiting ...
        max_wait_ms: ... or once the oldest waiting request has waited this long.
        max_queue: records waiting for the model before new requests get 503 + Retry-After.
        request_timeout_s: a request not answered in this time gets 504.
        policy: pass / block rule.
        api_key_file: file of accepted Bearer keys (one a line); see :mod:`.auth`.
        log_text: put the request text in the request log lines (off: ids and counts only).
        scorer: the scorer's :class:`~nli_faith.config.ScorerConfig`, with the per-record
            limits (``scorer.limits``: 422 naming the field past them), the one place the
            service keeps them; it travels as JSON, so that each worker process of
            ``--workers N`` builds the same scorer. A scorer left at the library's limits
            (``Limits()``) gets the service's tighter ones, :data:`SERVE_LIMITS`.
        limits: (a keyword only) the per-record limits, over ``scorer``'s; read back as
            ``settings.limits``, which is ``settings.scorer.limits``.
    """

    host: str = "127.0.0.1"
    port: int = 8080
    workers: int = 1
    max_body_bytes: int = 4 * 1024 * 1024
    max_batch_records: int = 64
    max_batch_pairs: int = 256
    max_wait_ms: float = 2.0
    max_queue: int = 256
    request_timeout_s: float = 30.0
    policy: Policy = field(default_factory=Policy)
    api_key_file: str | None = None
    log_text: bool = False
    scorer: ScorerConfig = field(default_factory=ScorerConfig)
    limits: InitVar[Limits | None] = None

    def __post_init__(self, limits: Limits | None) -> None:
        if limits is None and self.scorer.limits == Limits():
            limits = SERVE_LIMITS  # the library's limits are for batch jobs
        if limits is not None:
            object.__setattr__(self, "scorer", self.scorer.replace(limits=limits))

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ServeSettings:
        raw = json.loads(text)
        scorer = ScorerConfig.from_dict(raw["scorer"])
        limits = Limits(**raw["limits"]) if "limits" in raw else scorer.limits
        rest = {k: v for k, v in raw.items() if k not in ("limits", "policy", "scorer")}
        return cls(**rest, policy=Policy(**raw["policy"]), scorer=scorer, limits=limits)

    def scorer_config(self) -> ScorerConfig:
        """The scorer's configuration, with the service's record limits (``scorer``)."""
        return self.scorer


def _limits(settings: ServeSettings) -> Limits:
    """The per-record limits: the scorer's (:attr:`ServeSettings.scorer`)."""
    return settings.scorer.limits


ServeSettings.limits = property(_limits, doc=_limits.__doc__)  # type: ignore[assignment]


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback address (127.0.0.0/8, ::1).

    Example:
        >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
        (True, True, False)
    """
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
