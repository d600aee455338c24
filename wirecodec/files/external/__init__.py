"""The external-data layout: reading references into data files, planning them on save."""
