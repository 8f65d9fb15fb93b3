from panelot_host.cli.main import main

raise SystemExit(main())
