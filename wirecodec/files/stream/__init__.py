"""Streaming: a model read front to back in bounded memory, as events."""
