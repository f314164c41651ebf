"""JAX's key-reuse checker (`jax_debug_key_reuse`, `astjax.debug_key_reuse`): with the
flag on, a typed PRNG key that is *consumed* twice raises `KeyReuseError` at the
second use's line. JAX's rules: a sampler (`normal`, `uniform`, `bits`, ...) and
`split` consume their key; `fold_in`, `key_data` and `wrap_key_data` do not; `clone`
gives a new, unconsumed key; raw `uint32` keys are not checked.

Eagerly, a key array remembers that it was consumed. In a staged function the check
is an analysis of the IR being built: each consuming use records the key's variable;
a later use of a variable asks whether the equations staged so far consumed it --
directly, or inside a nested program (`cond` branch, `while`/`scan` body, custom
derivative or checkpoint call) that consumed the matching inner variable, as JAX's
analysis propagates consumption through those primitives. What is not seen (JAX sees
it): a nested program that consumes a key already consumed outside before it, and an
eager key consumed by a jitted function called with it."""
from __future__ import annotations

import weakref

from .. import core
from ..config import config
from ..config_api import State
from ..errors import KeyReuseError

__all__ = ["debug_key_reuse", "consume"]

debug_key_reuse = State("jax_debug_key_reuse")
debug_key_reuse.__doc__ = """`with astjax.debug_key_reuse(True):` a typed PRNG key
consumed twice (two samplers, or a sampler after `split`) raises `KeyReuseError`."""

# the variables of staged keys that a sampler or `split` consumed
_CONSUMED: weakref.WeakSet = weakref.WeakSet()


def _inner_operands(eqn):
    """(nested jaxpr, the outer operands its invars stand for), per nested program."""
    p = eqn.params
    name = eqn.primitive.name
    if name == "while":
        nc = p["cond_nconsts"]
        nb = p["body_nconsts"]
        carry = eqn.invars[nc + nb:]
        yield p["cond_jaxpr"], list(eqn.invars[:nc]) + list(carry)
        yield p["body_jaxpr"], list(eqn.invars[nc:])
        return
    for sub in core.sub_jaxprs(p):
        j = sub.jaxpr if isinstance(sub, core.ClosedJaxpr) else sub
        # cond's branches take every operand but the index; the other calls take all
        yield j, list(eqn.invars[len(eqn.invars) - len(j.invars):])


def _consumed_in(eqns, var) -> bool:
    """Whether `eqns` consume `var`: a consuming use was recorded on it, or a nested
    program reading it consumes the matching inner variable."""
    for eqn in eqns:
        if not any(v is var for v in eqn.invars):
            continue
        for j, outer in _inner_operands(eqn):
            inner = [iv for iv, ov in zip(j.invars, outer) if ov is var]
            if any(iv in _CONSUMED or _consumed_in(j.eqns, iv) for iv in inner):
                return True
    return False


def consume(key, what: str):
    """Record that `what` (a sampler's name, or 'random_split') consumes typed key
    array `key`; raise `KeyReuseError` if it was consumed already (flag on only)."""
    if not config.read("jax_debug_key_reuse"):
        return
    base = key._base
    if isinstance(base, core.Tracer):
        var = base.var
        if var in _CONSUMED or _consumed_in(base.builder.eqns, var):
            raise KeyReuseError(f"In {what}, the key argument is already consumed: a "
                                "PRNG key was used twice")
        _CONSUMED.add(var)
        return
    if getattr(key, "_consumed", False):
        raise KeyReuseError(f"Previously-consumed key passed to {what}: a PRNG key was "
                            "used twice")
    key._consumed = True
