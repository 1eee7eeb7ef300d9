"""Drop-in metrics for evaluation frameworks, one module per library.

* :mod:`nli_faith.integrations.deepeval` — ``NLIFaithfulnessMetric`` (``pip install
  "nli-faith[deepeval]"``).
* :mod:`nli_faith.integrations.ragas` — ``NLIFaithfulness`` (``pip install "nli-faith[ragas]"``).

Nothing is imported here: each module imports its library (with its telemetry off)
only when it is itself imported.
"""
