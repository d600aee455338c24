"""``python -m tests.mutation``: run the named mutants (see tests/mutation/run.py)."""

from __future__ import annotations

import sys

from tests.mutation.run import main

if __name__ == "__main__":
    sys.exit(main())
