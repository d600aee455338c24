"""Benchmarks of wirecodec beside the reference libraries: ``python bench/run.py``."""
