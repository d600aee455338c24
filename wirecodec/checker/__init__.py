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
from typing import Final

from schema_dsl.onnx import ModelProto
from wirecodec.checker import attributes, external, functions, names, opsets, required, sparse, tensors
from wirecodec.checker.violation import Report, Rule, Violation
from wirecodec.checker.walk import walk
from wirecodec.errors import CheckError
from wirecodec.files._base.tensor_data import TensorData
from wirecodec.files.external.data import DirectoryData
from wirecodec.files.opener import Opened, Source, open_model

__all__ = ["RULES", "Rule", "Violation", "check", "violations"]

RULES: Final[dict[str, Rule]] = {
    rule.id: rule
    for family in (names, required, opsets, attributes, tensors, external, functions, sparse)
    for rule in family.RULES
}
"""Every rule the checker enforces, by id."""


def violations(
    model: ModelProto | Opened | Source,
    *,
    full: bool = False,
    base_dir: str | os.PathLike[str] | None = None,
) -> list[Violation]:
    """Every violation in ``model``, rule family by family (an empty list for a valid model).

    ``model`` is a :class:`ModelProto`, an opened model
    (:func:`wirecodec.files.opener.open_model`) or anything the opener takes (a path, a
    zip container, bytes); a source is opened with its external data left in place and
    its references checked where they point (data files beside it, or the container's
    entries; ``base_dir`` to look elsewhere). For a ModelProto, data files are looked for
    only with a ``base_dir``. ``full=True`` also reads data files to verify checksums.
    """
    data: TensorData | None = None
    opened = model if isinstance(model, (Opened, ModelProto)) else open_model(model, base_dir=base_dir)
    if isinstance(opened, Opened):
        proto, data = opened.model, opened.data
    else:
        proto = opened
    if base_dir is not None and data is None:
        data = DirectoryData(base_dir)
    model = proto
    report = Report()
    sites = walk(model)
    names.check_names(model, report)
    required.check_required(sites, report)
    opsets.check_opsets(sites, report)
    attributes.check_attributes(sites, report)
    tensors.check_tensors(sites, report)
    external.check_external(sites, report, data=data, full=full)
    functions.check_functions(sites, report)
    sparse.check_sparse(sites, report)
    return report.violations


def check(
    model: ModelProto | Opened | Source,
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
