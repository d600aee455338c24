"""Models by URL: byte-range sources (HTTP, fsspec) and the structure fetched from them."""
