"""The rule families; importing this package registers every rule."""

from wirecodec.shape_inference.ops import (  # noqa: F401
    casts,
    control_flow,
    conv_pool,
    data_prop,
    elementwise,
    extras,
    matmul,
    misc,
    ml,
    newer,
    normalization,
    reductions,
    sequences,
    shape_ops,
)
