"""Weights in safetensors files: the format, tensor names, saving, attaching."""
