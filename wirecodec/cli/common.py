"""What several verbs share: the bundled example model."""

from __future__ import annotations

import pathlib
from typing import Final

EXAMPLE: Final = pathlib.Path(__file__).parent.parent / "examples" / "mlp.onnx"
