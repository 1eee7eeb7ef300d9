"""Bearer-key auth: keys from ``--api-key-file`` and ``NLI_FAITH_API_KEYS``, compared in
constant time, never logged.

Example:
    >>> keys = ApiKeys.parse("alpha\\n# a comment\\n\\nbeta")
    >>> keys.allows("Bearer beta"), keys.allows("Bearer gamma"), keys.allows(None)
    (True, False, False)
    >>> repr(keys)
    'ApiKeys(2 keys)'
"""

from __future__ import annotations

import hmac
import os
from pathlib import Path

from nli_faith.errors import E_SERVE_KEY_FILE, E_SERVE_NO_KEYS, OptionError

#: Environment variable with accepted keys, separated by commas or white space.
KEYS_ENV = "NLI_FAITH_API_KEYS"


class ApiKeys:
    """The accepted keys. Its ``repr`` shows only how many there are."""

    def __init__(self, keys: list[str]) -> None:
        self._keys = [k.encode("utf-8") for k in dict.fromkeys(keys)]

    @classmethod
    def parse(cls, text: str, *, sep: str | None = None) -> ApiKeys:
        """One key a line (``#`` comments and blank lines skipped), or ``sep``-separated."""
        if sep is not None:
            return cls([k.strip() for k in text.replace(sep, " ").split() if k.strip()])
        lines = (line.strip() for line in text.splitlines())
        return cls([line for line in lines if line and not line.startswith("#")])

    @classmethod
    def load(cls, key_file: str | None, *, environ: dict[str, str] | None = None) -> ApiKeys:
        """Keys of ``key_file`` (if given) and of the :data:`KEYS_ENV` variable."""
        env = os.environ if environ is None else environ
        keys: list[str] = []
        if key_file is not None:
            try:
                from_file = cls.parse(Path(key_file).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as err:
                raise OptionError(E_SERVE_KEY_FILE.format(path=key_file, error=err)) from None
            if not from_file:
                raise OptionError(E_SERVE_NO_KEYS.format(path=key_file))
            keys += [k.decode() for k in from_file._keys]
        keys += [k.decode() for k in cls.parse(env.get(KEYS_ENV, ""), sep=",")._keys]
        return cls(keys)

    def __bool__(self) -> bool:
        return bool(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"ApiKeys({len(self._keys)} keys)"

    def allows(self, authorization: str | None) -> bool:
        """Whether an ``Authorization`` header value carries an accepted Bearer key.

        Every key is compared (``hmac.compare_digest``, as bytes) whichever matches, so the
        time taken does not tell which key, or how much of one, was right.
        """
        if not self._keys:
            return True
        scheme, _, token = (authorization or "").partition(" ")
        presented = token.strip().encode("utf-8", "surrogateescape")
        ok = False
        for key in self._keys:
            ok |= hmac.compare_digest(key, presented)
        return ok and scheme.lower() == "bearer"
