"""``python -m wirecodec``: see :mod:`wirecodec.cli`."""

from wirecodec.cli import program

program()
