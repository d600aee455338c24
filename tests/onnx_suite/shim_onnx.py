"""The shim: an ``onnx`` package that only renames.

Copied as ``onnx/__init__.py`` into a scratch folder put first on ``sys.path`` of the
wirecodec run. Importing it makes ``onnx`` *be* ``wirecodec.onnx_compat`` and every
``onnx.a.b`` the module ``wirecodec.onnx_compat.a.b`` (an attribute of the parent that is a
module, or its submodule); a name wirecodec lacks is a plain ``ModuleNotFoundError``.
Imported under any other name (pytest's doctest collection), it does nothing.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Sequence

TARGET = "wirecodec.onnx_compat"
ALIAS = "onnx"


def _resolve(alias: str) -> types.ModuleType | None:
    """The wirecodec module that ``alias`` (``onnx`` or ``onnx.x.y``) names, imported; None if none."""
    module = importlib.import_module(TARGET)
    for part in alias.split(".")[1:]:
        child = getattr(module, part, None)
        if isinstance(child, types.ModuleType):
            module = child
            continue
        try:
            module = importlib.import_module(f"{module.__name__}.{part}")
        except ModuleNotFoundError:
            return None
    return module


class _Renamer(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``onnx.*`` as the wirecodec module of the same place, which stays what it was."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(ALIAS + "."):
            return None
        module = _resolve(fullname)
        if module is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=hasattr(module, "__path__"))

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        module = _resolve(spec.name)
        assert module is not None
        self._spec = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        # importlib stamped the alias spec on the module: give it back its own.
        module.__spec__ = self._spec


if __name__ == ALIAS:
    sys.meta_path.insert(0, _Renamer())
    sys.modules[ALIAS] = importlib.import_module(TARGET)
