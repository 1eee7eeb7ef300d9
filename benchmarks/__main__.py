"""``python -m benchmarks list`` / ``python -m benchmarks run NAME [options]``."""

from benchmarks.harness import main

raise SystemExit(main())
