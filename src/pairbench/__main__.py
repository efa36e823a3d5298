from pairbench.cli import main

raise SystemExit(main())
