"""The private base of the files layer: tensor-data protocol, references, locations,
atomic writes, maps, the tensor walk. Layout rooms and front doors build on it."""
