"""Training and evaluation of NLI cross-encoders (``nli-faith train``).

Import :func:`nli_faith.training.train.train` for the training entry point.
"""
