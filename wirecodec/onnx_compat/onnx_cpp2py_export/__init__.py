"""``onnx.onnx_cpp2py_export``: the module paths of onnx's C extension, as aliases.

Libraries import onnx's extension modules by name (``import onnx.onnx_cpp2py_export.defs
as C``); here ``checker``, ``defs``, ``shape_inference``, ``parser`` and ``printer`` are
the same modules as ``wirecodec.onnx_compat.checker`` and the others (the same objects),
importable under both names.

>>> import wirecodec.onnx_compat.onnx_cpp2py_export.defs as C
>>> from wirecodec.onnx_compat import defs
>>> C is defs, C.schema_version_map()[""]
(True, (1, 28))
"""

from __future__ import annotations

import sys
from typing import Final

from wirecodec.onnx_compat import checker, defs, parser, printer, shape_inference

__all__ = ["ONNX_ML", "checker", "defs", "parser", "printer", "shape_inference"]

ONNX_ML: Final = True

for _module in (checker, defs, parser, printer, shape_inference):
    sys.modules.setdefault(f"{__name__}.{_module.__name__.rpartition('.')[2]}", _module)
