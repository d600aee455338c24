"""random operators."""

from __future__ import annotations
