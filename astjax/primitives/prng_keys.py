"""The typed-key boundary: `random_wrap` and `random_unwrap`, as JAX names them.

A typed PRNG key array (`astjax.random.key`) is carried through every transformation
as its raw data, `uint32[..., *impl.key_shape]` (`uint32[..., 2]` for threefry2x32, see
`astjax/random/key_array.py`); the variables that hold keys have a `KeyDataAval`, which
every pass reads as that physical type and the jaxpr printer shows as JAX shows keys,
`key<fry>[...]` (`key<tag>` of the implementation). These two
primitives mark where a staged value crosses between key data and keys, so a printed
jaxpr types each variable as JAX does:

    b:key<fry>[] = random_wrap[impl=fry] a      # random.wrap_key_data(a)
    c:u32[2] = random_unwrap b                  # random.key_data(b), or a sampler

Both are the identity on the data: no computation is emitted, they are not
differentiable (keys are integers), they batch elementwise and print in
`astjax.source` as the operand itself (the source is written over the data).
"""
from __future__ import annotations

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray
from ..errors import DTypeError
from ..ir import KeyDataAval, Var
from .base import moveaxis, nondiff, register

__all__ = ["random_wrap_p", "random_unwrap_p", "random_wrap", "random_unwrap", "type_as_keys"]


def _identity_impl(x, **params):
    return np.asarray(x)


def _identity_lowering(ctx, x, **params):
    return x


def _operand_source(gen, eqn):
    return gen.arg(eqn.invars[0])


def _front_batch(p):
    """The batch rule of an identity on key data: the batch axis first (a key axis,
    never the trailing key-data one), the primitive applied to the batch."""
    def rule(args, dims, **params):
        x = args[0] if dims[0] in (None, 0) else moveaxis(args[0], dims[0], 0)
        return core.bind(p, x, **params), dims[0] if dims[0] is None else 0
    return rule

# ----------------------------------------------------------------- random_wrap


def _is_data_of(aval, impl):
    kn = len(impl.key_shape)
    return (aval.dtype == dtypes.uint32 and aval.ndim >= kn
            and tuple(aval.shape[aval.ndim - kn:]) == tuple(impl.key_shape))


def _wrap_abstract_eval(x, *, impl):
    if not _is_data_of(x, impl):
        raise DTypeError(f"random_wrap: key data of {impl.name} must be uint32[..., "
                         f"{', '.join(map(str, impl.key_shape))}], got {x.str_short(True)}")
    return KeyDataAval.of(x, impl, len(impl.key_shape))


random_wrap_p = core.new_primitive("random_wrap")
register(random_wrap_p, impl=_identity_impl, abstract_eval=_wrap_abstract_eval,
         lowering=_identity_lowering, source=_operand_source)
random_wrap_p.batch = _front_batch(random_wrap_p)
nondiff(random_wrap_p)


def random_wrap(data, impl):
    """Staged key `data` as typed keys of `impl` (a PRNG implementation record: its
    `key_shape`, printed by its `tag`, "fry"); a concrete value is returned as it is
    (the key array holds it directly)."""
    if isinstance(data, core.Tracer):
        return core.bind(random_wrap_p, data, impl=impl)
    return data

# --------------------------------------------------------------- random_unwrap


def _unwrap_abstract_eval(x, **_):
    # (a sampler's read under the key-reuse checker carries `consumes=<sampler name>`)
    return ShapedArray(x.shape, x.dtype)


random_unwrap_p = core.new_primitive("random_unwrap")
register(random_unwrap_p, impl=_identity_impl, abstract_eval=_unwrap_abstract_eval,
         lowering=_identity_lowering, source=_operand_source)
random_unwrap_p.batch = _front_batch(random_unwrap_p)
nondiff(random_unwrap_p)
# a sampler's marked read (the key-reuse checker on) survives DCE and CSE, as JAX's
# checker sees a consumption whose result is unused (its jaxprs keep dead code)
random_unwrap_p.effectful = lambda params: params.get("consumes") is not None


def random_unwrap(keys_data):
    """The raw data of staged typed keys, as a variable of the plain physical type (a
    concrete value as it is)."""
    if isinstance(keys_data, core.Tracer) and isinstance(keys_data.aval, KeyDataAval):
        return core.bind(random_unwrap_p, keys_data)
    return keys_data


def type_as_keys(data, impl):
    """Type the variable under staged key `data` as keys of `impl`, in place: for the
    values that become keys where no `random_wrap` is bound (a staging boundary's
    arguments and results, the output of a key-making computation such as `split`)."""
    if (isinstance(data, core.Tracer) and isinstance(data._var, Var)
            and not isinstance(data._var.aval, KeyDataAval)):
        aval = data._var.aval
        if _is_data_of(aval, impl):
            data._var.aval = KeyDataAval.of(aval, impl, len(impl.key_shape))
    return data
