"""The PRNG operations JAX keeps as primitives over typed keys: `random_seed`,
`random_split`, `random_fold_in` and `random_bits`, as JAX names them.

`random.key(seed)` (and `PRNGKey`) on a staged seed binds one equation instead of the
implementation's seeding computation inline, as JAX's jaxprs show it:

    b:key<fry>[] = random_seed[impl=fry] a     # random.key(a), a:u32[]

The seeds may have any shape; the result holds one key per seed, typed as keys of the
implementation (a `KeyDataAval` over `uint32[*seeds.shape, *impl.key_shape]`). It is
lowered to the implementation's own seed function (`impl.seed_each`: `impl.seed` mapped
over the seeds), so the key data is bit for bit what that function computes; it batches
elementwise over the seeds and is not differentiable (keys are integers). Its printed
source is the seeding call of the implementation's record.
"""
from __future__ import annotations

import ast
import functools
import math

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray
from ..errors import DTypeError, JAXTypeError
from ..ir import KeyDataAval
from .prng_keys import type_as_keys
from .base import lax_ops, lower_inline, lowering_from, moveaxis, nondiff, register

__all__ = ["random_seed_p", "random_seed", "random_split_p", "random_split",
           "random_fold_in_p", "random_fold_in", "random_bits_p", "random_bits"]


def _seed_abstract_eval(seeds, *, impl):
    if not (dtypes.is_int(seeds.dtype) and seeds.dtype != np.bool_):
        raise DTypeError(f"random_seed: a PRNG seed must be an integer, got "
                         f"{seeds.str_short(True)}",
                         hint="seed with an integer scalar: random.key(0)")
    data = ShapedArray(tuple(seeds.shape) + tuple(impl.key_shape), dtypes.uint32)
    return KeyDataAval.of(data, impl, len(impl.key_shape))


def _seed_impl(seeds, **params):
    return np.asarray(core.eager_backend(random_seed_p, [seeds], params))


def _seed_lower(seeds, *, impl):
    return impl.seed_each(seeds)


def _seed_batch(args, dims, *, impl):
    x = args[0] if dims[0] == 0 else moveaxis(args[0], dims[0], 0)
    return core.bind(random_seed_p, x, impl=impl), 0


def _seed_source(gen, eqn):
    # `<impl>.seed_each(seeds)`: the implementation's record provided in the globals
    impl = ast.Name(id=gen.inject(eqn.params["impl"], "prng_impl"), ctx=ast.Load())
    fn = ast.Attribute(value=impl, attr="seed_each", ctx=ast.Load())
    return ast.Call(func=fn, args=[gen.arg(eqn.invars[0])], keywords=[])


random_seed_p = core.new_primitive("random_seed")
register(random_seed_p, impl=_seed_impl, abstract_eval=_seed_abstract_eval,
         lowering=lowering_from(_seed_lower), batch=_seed_batch,
         source=_seed_source)
nondiff(random_seed_p)


def random_seed(seeds, impl):
    """Typed keys of `impl` (a PRNG implementation record with `key_shape`, `tag` and
    `seed_each`), one per element of the integer array `seeds`: their key data."""
    return core.bind(random_seed_p, seeds, impl=impl)


# ------------------------------------------- split / fold_in / bits: impl by key type


def _keys_impl(keys, name):
    """The implementation record of typed-key operand aval `keys`; plain data is no key
    (JAX's TypeError: the implementation is in the keys' type)."""
    if not isinstance(keys, KeyDataAval) or not hasattr(keys.impl, "key_shape"):
        raise JAXTypeError(f"{name} takes typed PRNG keys, got {keys.str_short(True)}",
                           hint="wrap key data first: random.wrap_key_data(data)")
    return keys.impl


def _lead(keys):
    return tuple(keys.shape[:len(keys.shape) - keys.key_ndim])


def _over_keys(impl, keys, one, each, *msgs):
    """`one(keys, *msgs)` on one key's data, else `each` over the flattened keys (and
    their `msgs`, of the keys' shape): a result per key, reshaped to the keys' shape."""
    lax = lax_ops()
    kshape = tuple(impl.key_shape)
    lead = tuple(core.get_aval(keys).shape[:-len(kshape)])
    if not lead:
        return one(keys, *msgs)
    n = math.prod(lead)
    out = each(lax.reshape(keys, (n,) + kshape), *(lax.reshape(m, (n,)) for m in msgs))
    return lax.reshape(out, lead + tuple(core.get_aval(out).shape[1:]))


def _split_data(impl, keys, *, shape):
    return _over_keys(impl, keys, lambda k: impl.split(k, shape),
                      lambda k: impl.split_each(k, shape))


def _fold_in_data(impl, keys, msgs):
    # the keys and the data broadcast against each other (NumPy's rule, as JAX's):
    # `fold_in_each` maps over the axes where they are not broadcast
    kshape = tuple(impl.key_shape)
    lead = tuple(core.get_aval(keys).shape[:-len(kshape)])
    if not lead and not core.get_aval(msgs).shape:
        return impl.fold_in(keys, msgs)
    return impl.fold_in_each(keys, msgs)


def _bits_data(impl, keys, *, bit_width, shape):
    return _over_keys(impl, keys, lambda k: impl.random_bits(k, bit_width, shape),
                      lambda k: impl.bits_each(k, bit_width, shape))


def _by_key_lowering(data_fn):
    """The lowering of a primitive computing `data_fn(impl, *operands, **params)` over
    the data of its typed keys (operand 0: the implementation from its aval)."""
    def rule(ctx, *args, **params):
        impl = ctx.avals_in[0].impl
        fn = functools.partial(data_fn, impl, **params)
        return lower_inline(ctx, lambda *xs: [fn(*xs)], ctx.avals_in, args)[0]
    return rule


def _by_key_source(data_fn):
    # `<data_fn with the keys' implementation and the params>(operands)`
    def rule(gen, eqn):
        fn = functools.partial(data_fn, eqn.invars[0].aval.impl, **eqn.params)
        name = ast.Name(id=gen.inject(fn, eqn.primitive.name), ctx=ast.Load())
        return ast.Call(func=name, args=[gen.arg(v) for v in eqn.invars], keywords=[])
    return rule


def _eager(p):
    return lambda *args, **params: np.asarray(core.eager_backend(p, list(args), params))


def _split_abstract_eval(keys, *, shape):
    impl = _keys_impl(keys, "random_split")
    kshape = tuple(impl.key_shape)
    data = ShapedArray(_lead(keys) + tuple(shape) + kshape, dtypes.uint32)
    return KeyDataAval.of(data, impl, len(kshape))


def _split_batch(args, dims, *, shape):
    # the batch axis stays where it is (JAX's rule is vectorized): an implementation
    # drawing from its keys in order (rbg's `rng_bit_generator`) sees them as laid out
    return core.bind(random_split_p, args[0], shape=shape), dims[0]


random_split_p = core.new_primitive("random_split")
register(random_split_p, impl=_eager(random_split_p), abstract_eval=_split_abstract_eval,
         lowering=_by_key_lowering(_split_data), batch=_split_batch,
         source=_by_key_source(_split_data))
nondiff(random_split_p)


def _fold_in_abstract_eval(keys, msgs):
    impl = _keys_impl(keys, "random_fold_in")
    if msgs.dtype != dtypes.uint32:
        raise DTypeError(f"random_fold_in: the data folded in must be uint32, got "
                         f"{msgs.str_short(True)}", hint="convert it: data.astype(uint32)")
    try:
        lead = np.broadcast_shapes(_lead(keys), tuple(msgs.shape))
    except ValueError:
        raise DTypeError(f"random_fold_in: keys {keys.str_short(True)} and data "
                         f"{msgs.str_short(True)} do not broadcast") from None
    data = ShapedArray(tuple(lead) + tuple(impl.key_shape), dtypes.uint32)
    return KeyDataAval.of(data, impl, len(impl.key_shape))


def _fold_in_batch(args, dims):
    # the batch axis first in both (an unbatched key broadcast along it; unbatched data
    # broadcasts by itself), the other axes aligned from the end as the rule broadcasts
    lax = lax_ops()
    keys, msgs = args
    impl = keys.aval.impl
    kn = len(impl.key_shape)
    # as JAX's broadcasting rule: batched operands of one shape batched at one axis (and
    # unbatched scalars) keep that axis, so unsafe_rbg's draws follow the keys' layout
    shapes = [(tuple(keys.shape[:keys.ndim - kn]), dims[0]), (tuple(msgs.shape), dims[1])]
    batched = [(s, d) for s, d in shapes if s]
    if all(sd == batched[0] and sd[1] is not None for sd in batched):
        return core.bind(random_fold_in_p, keys, msgs), batched[0][1]
    n = next(x.shape[d] for x, d in zip(args, dims) if d is not None)
    if dims[0] is None:
        keys = lax.broadcast_in_dim(keys, (n,) + tuple(keys.shape),
                                    tuple(range(1, keys.ndim + 1)))
    elif dims[0] != 0:
        keys = moveaxis(keys, dims[0], 0)
    if dims[1] is not None and dims[1] != 0:
        msgs = moveaxis(msgs, dims[1], 0)
    lead, m = keys.ndim - kn - 1, msgs.ndim - (dims[1] is not None)
    if dims[1] is not None and m < lead:
        msgs = lax.reshape(msgs, (n,) + (1,) * (lead - m) + tuple(msgs.shape[1:]))
    elif m > lead:
        keys = lax.reshape(keys, (n,) + (1,) * (m - lead) + tuple(keys.shape[1:]))
    return core.bind(random_fold_in_p, type_as_keys(keys, impl), msgs), 0


random_fold_in_p = core.new_primitive("random_fold_in")
register(random_fold_in_p, impl=_eager(random_fold_in_p),
         abstract_eval=_fold_in_abstract_eval, lowering=_by_key_lowering(_fold_in_data),
         batch=_fold_in_batch, source=_by_key_source(_fold_in_data))
nondiff(random_fold_in_p)


def _bits_abstract_eval(keys, *, bit_width, shape):
    _keys_impl(keys, "random_bits")
    if bit_width not in (8, 16, 32, 64):
        raise DTypeError(f"random_bits: bit_width must be 8, 16, 32 or 64, got {bit_width}")
    dt = np.dtype(f"uint{bit_width}")
    return ShapedArray(_lead(keys) + tuple(shape), dt)


def _bits_batch(args, dims, *, bit_width, shape):
    # vectorized, as split: the keys' layout decides which key draws which bits
    return core.bind(random_bits_p, args[0], bit_width=bit_width, shape=shape), dims[0]


random_bits_p = core.new_primitive("random_bits")
register(random_bits_p, impl=_eager(random_bits_p), abstract_eval=_bits_abstract_eval,
         lowering=_by_key_lowering(_bits_data), batch=_bits_batch,
         source=_by_key_source(_bits_data))
nondiff(random_bits_p)


core.KEY_TYPE_READERS.update((random_split_p, random_fold_in_p, random_bits_p))


def _typed(x):
    return isinstance(x, core.Tracer) and isinstance(getattr(x, "aval", None), KeyDataAval)


def random_split(keys, shape, impl):
    """Typed keys `keys` (their data) each split to `shape`: one `random_split` equation
    when they are staged typed keys, else `impl`'s split computed on the data."""
    if _typed(keys):
        return core.bind(random_split_p, keys, shape=tuple(shape))
    return _split_data(impl, keys, shape=tuple(shape))


def random_fold_in(keys, msgs, impl):
    """Typed keys `keys` (their data) with the uint32 `msgs` folded in: one
    `random_fold_in` equation when they are staged typed keys."""
    if _typed(keys):
        return core.bind(random_fold_in_p, keys, msgs)
    return _fold_in_data(impl, keys, msgs)


def random_bits(keys, bit_width, shape, impl):
    """`bit_width`-bit random bits of `shape` from each of typed keys `keys` (their data):
    one `random_bits` equation when they are staged typed keys."""
    if _typed(keys):
        return core.bind(random_bits_p, keys, bit_width=bit_width, shape=tuple(shape))
    return _bits_data(impl, keys, bit_width=bit_width, shape=tuple(shape))
