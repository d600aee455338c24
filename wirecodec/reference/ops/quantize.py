"""quantize operators."""

from __future__ import annotations
