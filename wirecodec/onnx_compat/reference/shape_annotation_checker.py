"""``onnx.reference.shape_annotation_checker``: the error of ``check_shape_annotations=True``.

:class:`ShapeAnnotationError` is raised by
:class:`~wirecodec.reference.ReferenceEvaluator` when a value's runtime shape or type
breaks what the model declares for it (a rank, a dimension value, a symbolic dimension
taking two sizes).
"""

from __future__ import annotations

from wirecodec.reference._errors import ShapeAnnotationError

__all__ = ["ShapeAnnotationError"]
