"""The summary table of ``nli-faith score`` (either engine), kept as running totals."""

from __future__ import annotations

from nli_faith.results import FaithfulnessResult


class RunningSummary:
    """The summary table's figures, accumulated record by record (memory does not grow)."""

    def __init__(self) -> None:
        self.records = self.scored = self.no_claims = self.failed = 0
        self.sums = {"strict": 0.0, "lenient": 0.0, "soft": 0.0}
        self.claims = {"yes": 0, "no": 0, "idk": 0}
        self.uncertain = 0
        self.with_ref = 0
        self.ref_sums = {"hallucination_rate": 0.0, "self_knowledge_rate": 0.0}
        self.ref_claims = {"hallucination": 0, "self_knowledge": 0}
        self.faithful: dict[bool, int] = {True: 0, False: 0}

    def add(self, r: FaithfulnessResult) -> None:
        self.records += 1
        if r.error is not None:
            self.failed += 1
        elif r.n_claims == 0:
            self.no_claims += 1
        else:
            self.scored += 1
            for name in self.sums:
                self.sums[name] += getattr(r, name)
        self.claims["yes"] += r.n_yes
        self.claims["no"] += r.n_no
        self.claims["idk"] += r.n_idk
        self.uncertain += r.n_uncertain
        if r.error is None and r.n_claims and r.hallucination_rate is not None:
            self.with_ref += 1
            for name in self.ref_sums:
                self.ref_sums[name] += getattr(r, name)
            for c in r.claims:
                if c.reference_label in self.ref_claims:
                    self.ref_claims[c.reference_label] += 1

    def add_gate(self, passed: bool | None) -> None:
        """One record's ``faithful`` decision from ``--thresholds`` (None: not decided)."""
        if passed is not None:
            self.faithful[passed] += 1

    def render(self) -> str:
        def mean(name: str) -> str:
            return f"{self.sums[name] / self.scored:.3f}" if self.scored else "–"

        rows = [
            ("records", str(self.records)),
            ("scored", str(self.scored)),
            ("no verifiable claims", str(self.no_claims)),
            ("failed", str(self.failed)),
            ("mean strict", mean("strict")),
            ("mean lenient", mean("lenient")),
            ("mean soft", mean("soft")),
            ("claims supported (yes)", str(self.claims["yes"])),
            ("claims contradicted (no)", str(self.claims["no"])),
            ("claims not found (idk)", str(self.claims["idk"])),
            ("claims uncertain (for a judge)", str(self.uncertain)),
        ]
        if self.with_ref:
            n = self.with_ref
            rows += [
                ("with a reference answer", str(n)),
                ("mean hallucination rate", f"{self.ref_sums['hallucination_rate'] / n:.3f}"),
                ("mean self-knowledge rate", f"{self.ref_sums['self_knowledge_rate'] / n:.3f}"),
                ("claims hallucinated", str(self.ref_claims["hallucination"])),
                ("claims self-knowledge", str(self.ref_claims["self_knowledge"])),
            ]
        if any(self.faithful.values()):
            decided = self.faithful[True] + self.faithful[False]
            rows.append(("faithful (--thresholds)", f"{self.faithful[True]} of {decided}"))
        width = max(len(k) for k, _ in rows)
        return "\n".join(f"{k:<{width}}  {v:>8}" for k, v in rows)
