"""Values made without an Explicit type: which staged values made from no operand
(`jnp.zeros`'s broadcast, an iota, a constant's conversion) are *not* typed
replicated over an Explicit context mesh (`codegen/explicit.py` types the others so,
as JAX types them).

JAX decides it when it traces the making operation, from what it is given: a value
laid out anew at once (`out_sharding=` of `jnp.zeros`, `arange`, a random draw) gets
that layout, one made inside `auto_axes` a mesh whose axes no type names, and a
transformation's own constants (a derivative's instantiated zero, a batching rule's
broadcast) the type of the value they stand for. astjax's IR types carry no layout,
so the making equation records it instead: its source info's `made_untyped` flag
(`errors.SourceInfo`). Every transformation re-stages an equation under its own
source info (`jvp`, `vmap`, inlining a call, partial evaluation, ...), so the flag
travels with the equation and nothing has to copy it by hand.

Two ways set it:

- `staging_untyped(info)`: a transformation's rule (a JVP or batching rule, the
  zeros a JVP instantiates) staged under `info` marked: what it makes from no
  operand -- also inside the bodies it stages -- is untyped, while the equations it
  re-stages keep their own source info (and flag);
- `not_made_here()`: around user code (a `jnp` function given `out_sharding=`, an
  `auto_axes` function), whose equations keep their lines: the values it made from
  no operand are marked when it returns, also inside the bodies of its control flow
  (those copied: a body may be shared with another program).
"""
from __future__ import annotations

import contextlib

from .. import core
from .. import sharding_impls as shd

__all__ = ["staging_untyped", "not_made_here", "is_untyped_made"]


def is_untyped_made(eqn) -> bool:
    """Whether `eqn`'s values made from no operand have no Explicit type."""
    return eqn.source_info.made_untyped


def staging_untyped(info=None, **changes):
    """A context in which equations are staged under source info `info` (by default
    the current one), with `changes` (e.g. a `phase`), marked `made_untyped` (see the
    module)."""
    info = core.current_source_info() if info is None else info
    return core.source_info_context(info.replace(made_untyped=True, **changes))


@contextlib.contextmanager
def not_made_here():
    """While this runs, the values staged from no operand are not typed replicated
    over the context mesh: they are laid out anew next (`out_sharding=` of
    `jnp.zeros`, `arange`, a random draw: JAX gives the making operation that layout)
    or made inside `auto_axes` (whose axes no type names). Nothing is marked while no
    mesh with an Explicit axis was made (no type has a layout)."""
    b = core.current_builder() if shd.explicit_meshes[0] else None
    start = len(b.eqns) if b is not None else 0
    try:
        yield
    finally:
        if b is not None and b.alive:
            for i in range(start, len(b.eqns)):
                new = _marked(b.eqns[i])
                if new is not b.eqns[i]:
                    for v in new.outvars:
                        b.producer[v] = new
                    b.eqns[i] = new


def _marked(eqn):
    """`eqn` with its values made from no operand marked untyped, also those of the
    equations of its bodies (copied); `eqn` itself when nothing changes."""
    params = eqn.params
    if any(True for _ in core.sub_jaxprs(params)):
        params = {k: _marked_bodies(v) for k, v in params.items()}
        if all(params[k] is v for k, v in eqn.params.items()):
            params = eqn.params
    info = eqn.source_info
    if not info.made_untyped and not any(isinstance(a, core.Var) for a in eqn.invars):
        info = info.replace(made_untyped=True)
    if params is eqn.params and info is eqn.source_info:
        return eqn
    return eqn.replace(params=params, source_info=info)


def _marked_bodies(p):
    """Param value `p` with the equations of the jaxprs in it `_marked` (a jaxpr with
    a change copied)."""
    if isinstance(p, core.ClosedJaxpr):
        inner = _marked_bodies(p.jaxpr)
        return p if inner is p.jaxpr else core.ClosedJaxpr(inner, p.consts)
    if isinstance(p, core.Jaxpr):
        eqns = [_marked(e) for e in p.eqns]
        if all(n is e for n, e in zip(eqns, p.eqns)):
            return p
        return core.Jaxpr(p.constvars, p.invars, p.outvars, eqns)
    if isinstance(p, tuple):
        out = tuple(_marked_bodies(q) for q in p)
        return p if all(n is q for n, q in zip(out, p)) else out
    return p
