"""Command line: ``nli-faith <command>``.

Each command is a module of this package with ``add_parser(subparsers)`` and
``run(args) -> int``; :data:`COMMANDS` lists them in ``--help`` order. Heavy
libraries (torch, transformers, spaCy) are imported only inside ``run``, so
``nli-faith --help`` is instant.
"""

from __future__ import annotations

import argparse
import logging
from importlib import import_module

from nli_faith import __version__

#: Sub-command modules, in ``--help`` order.
COMMANDS = ("score", "calibrate", "report", "merge", "judge", "train")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nli-faith",
        description=(
            "Claim-level faithfulness scoring with a local NLI cross-encoder; no LLM calls."
        ),
    )
    parser.add_argument("--version", action="version", version=f"nli-faith {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        import_module(f"nli_faith.cli.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    return import_module(f"nli_faith.cli.{args.command}").run(args)
