"""Text stages: sentences, claims, chunks, numbers and content words."""
