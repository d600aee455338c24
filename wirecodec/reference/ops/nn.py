"""nn operators."""

from __future__ import annotations
