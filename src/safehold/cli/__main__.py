"""`python -m safehold.cli`."""

import sys

from safehold.cli import main

sys.exit(main())
