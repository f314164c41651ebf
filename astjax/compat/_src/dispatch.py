"""`jax._src.dispatch`: running one primitive eagerly, and waiting for effects.

- `apply_primitive(prim, *args, **params)` evaluates one primitive on concrete
  arrays by compiling the program of that one equation (astjax's eager path,
  `codegen.runtime.eager_apply`, cached by avals and params), as JAX's does; a
  primitive with several results returns a list.
- `simple_impl(prim)` makes that the eager implementation of a user primitive.
- `wait_for_tokens()` waits for the ordered side effects of programs already
  launched. astjax runs no ordered effects (no effect tokens are ever issued), so
  there is never anything to wait for.
"""
from ...codegen.runtime import eager_apply

__all__ = ["apply_primitive", "simple_impl", "wait_for_tokens"]


def apply_primitive(prim, *args, **params):
    """Run `prim` once on `args` (arrays) with `params`, compiled by XLA."""
    return eager_apply(prim, args, params)


def simple_impl(prim) -> None:
    """Make `apply_primitive` the eager implementation of `prim` (JAX's helper for a
    user primitive whose only rule is its lowering, e.g. an FFI call)."""
    prim.def_impl(lambda *args, **params: apply_primitive(prim, *args, **params))


def wait_for_tokens() -> None:
    """Return once every ordered effect has run: at once, since astjax issues none."""
    return None
