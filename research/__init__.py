"""Research tooling of nli-faith, kept out of the installed package.

Training-data synthesis (``python -m research.taskmix``, ``research.confusions``,
``research.response_dev``, ``research.train``) and the one-off studies
(``python -m research.studies``). It runs from a clone of the repository, beside the
installed ``nli_faith`` that it imports; ``nli_faith`` never imports it.
"""
