"""``python -m nli_faith.cli`` = ``nli-faith``."""

import sys

from nli_faith.cli import main

sys.exit(main())
