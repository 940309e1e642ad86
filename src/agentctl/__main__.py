from __future__ import annotations

from agentctl.cli.main import main

raise SystemExit(main())
