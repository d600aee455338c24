"""Graph algorithms over decoded models: the one scope walk (:mod:`.scopes`), subgraph
extraction by names (:mod:`.subgraph`), and drawing (:mod:`.draw`). Each is imported where a
call needs it; this package imports nothing."""
