"""Pure functions over the NLI matrix (verdicts, scores, early exit) and pair selection."""
