from research.studies import RUNNER

raise SystemExit(RUNNER.main())
