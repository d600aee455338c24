"""A small mutation-testing harness: named bugs applied to a copy of the tree (see run.py)."""
