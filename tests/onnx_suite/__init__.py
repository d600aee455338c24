"""onnx's own Python tests, run on onnx and on wirecodec through a renaming shim.

``python -m tests.onnx_suite`` fetches the sdist of the installed onnx release (cached in
``.onnx_suite_cache/``), runs the chosen test modules twice and prints, per module, how
many pass on onnx and on wirecodec. It exits non-zero when a test that passes on onnx fails
on wirecodec and is not on ``expected_failures.txt``.
"""
