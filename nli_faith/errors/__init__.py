"""Every error message nli-faith raises, with its stable code, in one package (as spaCy keeps
them in one module), a module a role (options, records, judge, ...).

Each message constant (``E_...``) is a :class:`~nli_faith.exceptions.Message`: a ``str``
that carries its code (``E001``...; :data:`CODES`), kept by ``.format()``, so every
:class:`~nli_faith.exceptions.NliFaithError` knows the code of the message it was raised
with (``err.code``). A code never changes meaning: a new message takes the next free
number. Library messages name the library's own options (``max_claims``,
``early_exit=True``), never a command-line flag, and an output row carries the library's
words whatever the door, so that every door writes the same rows; the command line and the
service add their flag (:func:`with_flag`) where they tell a person (a failed line on
stderr, a 422 reply). The exception classes are defined in :mod:`nli_faith.exceptions` and
imported from here too (``from nli_faith.errors import RecordError``).

Example:
    >>> err = RecordError(E_FIELD_NULL.format(field="response", expected="a string"))
    >>> err.code, str(err)
    ('E047', "field 'response' is null; expected a string.")
    >>> with_code(err)
    "[E047] field 'response' is null; expected a string."
"""

from __future__ import annotations

import re

# The messages, one module a role (each module's __all__); every one is importable from here.
from nli_faith.errors.calibration import *  # noqa: F403
from nli_faith.errors.integrations import *  # noqa: F403
from nli_faith.errors.judge import *  # noqa: F403
from nli_faith.errors.options import *  # noqa: F403
from nli_faith.errors.records import *  # noqa: F403
from nli_faith.errors.scale import *  # noqa: F403
from nli_faith.errors.serve import *  # noqa: F403
from nli_faith.errors.stream import *  # noqa: F403
from nli_faith.errors.training import *  # noqa: F403

# The exception classes live in nli_faith.exceptions; they are imported from here as well.
from nli_faith.exceptions import DataError as DataError
from nli_faith.exceptions import LabelMapError as LabelMapError
from nli_faith.exceptions import Message
from nli_faith.exceptions import MissingDependencyError as MissingDependencyError
from nli_faith.exceptions import ModelLoadError as ModelLoadError
from nli_faith.exceptions import NliFaithError as NliFaithError
from nli_faith.exceptions import OnnxBackendError as OnnxBackendError
from nli_faith.exceptions import OptionError as OptionError
from nli_faith.exceptions import OptionTypeError as OptionTypeError
from nli_faith.exceptions import ParserMissingError as ParserMissingError
from nli_faith.exceptions import RecordError as RecordError
from nli_faith.exceptions import ThresholdsError as ThresholdsError
from nli_faith.exceptions import with_code as with_code


def with_flag(message: str) -> str:
    """A library limit message with the command-line flag of the option it names.

    Example:
        >>> with_flag("field 'response' holds 13 claims, over the limit of 12 (max_claims).")
        "field 'response' holds 13 claims, over the limit of 12 (--max-claims)."
    """
    return re.sub(
        r"\((max_[a-z_]+)\)\.$", lambda m: f"(--{m.group(1).replace('_', '-')}).", message
    )


#: The stable code of every message (``E_...`` name -> code); a code is never reused.
CODES: dict[str, str] = {
    name: value.code for name, value in list(globals().items()) if isinstance(value, Message)
}
