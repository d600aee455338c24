"""``python -m wirecodec``: see :mod:`wirecodec.cli`."""

import sys

from wirecodec.cli import main

sys.exit(main())
