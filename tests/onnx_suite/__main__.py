"""``python -m tests.onnx_suite``: see :func:`tests.onnx_suite.run.main`."""

import sys

from tests.onnx_suite.run import main

sys.exit(main())
