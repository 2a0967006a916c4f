"""``python -m sparklet.pipelines``: the ``sparklet-pipelines`` command."""

import sys

from sparklet.pipelines.cli import main

sys.exit(main())
