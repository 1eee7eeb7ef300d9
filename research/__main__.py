"""``python -m research``: what this package runs."""

from __future__ import annotations

import sys

TOOLS = {
    "research.train": "nli-faith train with synthetic training pairs added",
    "research.taskmix": "the task-shaped fine-tuning mix (RAG-shaped pairs, NLI slice, mined)",
    "research.confusions": "a second-stage mix of in-document confusions or garbled claims",
    "research.response_dev": "development sets of whole answers from held-out documents",
    "research.studies": "the one-off studies (list, run NAME)",
}


def main() -> int:
    width = max(map(len, TOOLS))
    print("usage: python -m MODULE [options]   (MODULE --help: its options)\n")
    for mod, what in TOOLS.items():
        print(f"  {mod:<{width}}  {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
