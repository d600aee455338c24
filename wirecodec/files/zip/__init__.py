"""The ``.onnxz`` zip container: records, layout, reading, replacing entries."""
