"""`python -m activation`."""

import sys

from activation.commands.main import main

sys.exit(main())
