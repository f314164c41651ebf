"""The PRNG operations JAX keeps as primitives over typed keys: `random_seed`, as JAX
names it.

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

import numpy as np

from .. import core, dtypes
from ..core import ShapedArray
from ..errors import DTypeError
from ..ir import KeyDataAval
from .base import lowering_from, moveaxis, nondiff, register

__all__ = ["random_seed_p", "random_seed"]


def _seed_abstract_eval(seeds, *, impl):
    if not (dtypes.is_int(seeds.dtype) and seeds.dtype != np.bool_):
        raise DTypeError(f"random_seed: a PRNG seed must be an integer, got "
                         f"{seeds.str_short(True)}",
                         hint="seed with an integer scalar: random.key(0)")
    data = ShapedArray(tuple(seeds.shape) + tuple(impl.key_shape), dtypes.uint32)
    return KeyDataAval.of(data, impl.tag, len(impl.key_shape))


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
