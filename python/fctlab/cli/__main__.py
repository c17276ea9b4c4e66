"""`python -m fctlab.cli ...`: the `fctlab` command."""

import sys

from fctlab.cli import main

sys.exit(main())
