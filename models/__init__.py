"""Package data: the bundled NLI model and the registry of known models."""
