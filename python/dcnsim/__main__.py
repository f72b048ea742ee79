"""``python -m dcnsim`` is the ``dcnsim`` command, for environments without the script."""

import sys

from dcnsim.cli import main

sys.exit(main())
