"""`python -m activation`."""

import sys

from activation.cli import main

sys.exit(main())
