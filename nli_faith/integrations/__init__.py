"""Drop-in metrics and guardrails for evaluation frameworks, one module per library.

* :mod:`nli_faith.integrations.deepeval` — ``NLIFaithfulnessMetric`` (``pip install
  "nli-faith[deepeval]"``).
* :mod:`nli_faith.integrations.ragas` — ``NLIFaithfulness`` (``pip install "nli-faith[ragas]"``).
* :mod:`nli_faith.integrations.guardrails` — ``NLIFaithfulness``, a Guardrails AI validator
  (``pip install "nli-faith[guardrails]"``).
* :mod:`nli_faith.integrations.llamaindex` — ``NLIFaithfulnessEvaluator``, a LlamaIndex
  ``BaseEvaluator`` (``pip install "nli-faith[llamaindex]"``).
* :mod:`nli_faith.integrations.langchain` — ``NLIFaithfulnessCheck``, a LangChain runnable
  (``pip install "nli-faith[langchain]"``).

:mod:`nli_faith.integrations.gate` holds what the three guardrails share (pass or fail,
the words to blame, the answer without its unsupported claims).

Nothing is imported here: each module imports its library only when it is itself
imported (DeepEval's and RAGAS's telemetry switched off; for Guardrails' usage metrics
see that module).
"""
