"""`lax.cond`, `lax.switch`, `lax.while_loop`, `lax.fori_loop`, `lax.scan`, `lax.map`
(being written with the control-flow primitives)."""
__all__: list = []
