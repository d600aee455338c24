"""Check a model against the ONNX IR specification: the rules that need no operator schemas.

:func:`check` collects every violation — value names (single assignment, topological
order, defined inputs and outputs), required fields, IR versions and opset imports,
attributes, tensor contents, external data, model-local functions and sparse tensors —
and raises one :class:`~wirecodec.CheckError` listing them all, each with the field
path where it was found and the id of the rule it breaks (:data:`RULES`; the list with
the spec section of each is in ``docs/checker.md``).

>>> from schema_dsl.onnx import ModelProto
>>> from wirecodec.examples.build_mlp import build
>>> model = build()
>>> check(model)  # a valid model: nothing happens
>>> model.graph.node[1].input[0] = "nowhere"
>>> check(model)
Traceback (most recent call last):
...
wirecodec.errors.CheckError: the model breaks the ONNX IR specification in 1 place:
  graph.node[1].input[0]: 'nowhere' is not defined before this node [undefined-input]
"""

from __future__ import annotations

import os
import pathlib
from typing import Final

from schema_dsl.onnx import ModelProto
from wirecodec.checker import attributes, external, functions, names, opsets, required, sparse, tensors
from wirecodec.checker.violation import Report, Rule, Violation
from wirecodec.checker.walk import walk
from wirecodec.errors import CheckError
from wirecodec.files.load import load

__all__ = ["RULES", "Rule", "Violation", "check", "violations"]

RULES: Final[dict[str, Rule]] = {
    rule.id: rule
    for family in (names, required, opsets, attributes, tensors, external, functions, sparse)
    for rule in family.RULES
}
"""Every rule the checker enforces, by id."""


def violations(
    model: ModelProto | str | os.PathLike[str],
    *,
    full: bool = False,
    base_dir: str | os.PathLike[str] | None = None,
) -> list[Violation]:
    """Every violation in ``model``, rule family by family (an empty list for a valid model).

    ``model`` is a :class:`ModelProto` or the path of a model file; a file is read with
    its external data left in place, and ``base_dir`` defaults to its directory. With a
    ``base_dir`` external data files are found and sized; ``full=True`` also reads them
    to verify checksums.
    """
    if not isinstance(model, ModelProto):
        path = pathlib.Path(model)
        model = load(path, load_external_data=False)
        if base_dir is None:
            base_dir = path.parent
    report = Report()
    sites = walk(model)
    names.check_names(model, report)
    required.check_required(sites, report)
    opsets.check_opsets(sites, report)
    attributes.check_attributes(sites, report)
    tensors.check_tensors(sites, report)
    external.check_external(
        sites, report, base_dir=None if base_dir is None else pathlib.Path(base_dir), full=full
    )
    functions.check_functions(sites, report)
    sparse.check_sparse(sites, report)
    return report.violations


def check(
    model: ModelProto | str | os.PathLike[str],
    *,
    full: bool = False,
    base_dir: str | os.PathLike[str] | None = None,
) -> None:
    """Raise :class:`~wirecodec.CheckError` listing every violation in ``model``; return None if valid.

    Arguments as for :func:`violations`.
    """
    found = violations(model, full=full, base_dir=base_dir)
    if found:
        raise CheckError(found)
