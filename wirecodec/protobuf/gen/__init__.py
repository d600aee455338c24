"""The code generators: a message's decoder, validator and encoder, from its declaration."""
