"""Entry point for ``python -m wirecodec``."""

import sys

from wirecodec.cli import main

sys.exit(main())
