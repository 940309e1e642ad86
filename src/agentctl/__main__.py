from __future__ import annotations

from agentctl.cli import main

raise SystemExit(main())
