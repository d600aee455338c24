"""The tasks are scripts run in fresh interpreters (tests/clients/run.py), not modules to import:
collecting them for doctests would run them without their arguments."""

collect_ignore_glob = ["tasks/*.py"]
