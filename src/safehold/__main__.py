"""`python -m safehold`: the `safehold` command."""

import sys

from safehold.cli import main

sys.exit(main())
