"""`jax._src.interpreters`: the private interpreter modules extension code imports
(`mlir`, for `mlir.custom_call` and the lowering-rule context; `pxla`, its result
handlers)."""
