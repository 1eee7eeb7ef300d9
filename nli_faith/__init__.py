"""nli-faith: claim-level faithfulness scoring with a local NLI cross-encoder."""

__version__ = "0.1.0"
