"""`jax.experimental.colocated_python.func`: JAX's module of colocated functions,
imported by orbax-checkpoint (which reads its private helpers with `getattr(...,
None)`); the public entry is the package's `colocated_python`."""
