"""`jnp.vectorize`: a function of scalars (or, with a gufunc `signature` such as
`'(n),(n)->()'`, of fixed-rank core arrays) applied over broadcast leading "loop"
dimensions, by `vmap` over those dimensions flattened into one."""
from __future__ import annotations

import functools
import re

import numpy as np

from .. import core, lax
from ..batching_api import vmap
from ..frontend import operators
from ..tree_util import tree_map
from . import ufuncs as uf
from .ufuncs import asarray_operand
from .util import _Direct

__all__ = ["vectorize"]

_ARGS = r"\(\s*(?:\w+\s*(?:,\s*\w+\s*)*)?\)"
_SIGNATURE = re.compile(rf"^\s*({_ARGS}(?:\s*,\s*{_ARGS})*)\s*->\s*({_ARGS}(?:\s*,\s*{_ARGS})*)\s*$")


def parse_signature(signature):
    """'(m,n),(n)->(m)' -> ([('m', 'n'), ('n',)], [('m',)])."""
    m = _SIGNATURE.match(signature)
    if m is None:
        raise ValueError(f"not a valid gufunc signature: {signature}")

    def side(text):
        return [tuple(d for d in re.split(r"\s*,\s*", g.strip()) if d)
                for g in re.findall(r"\(([^)]*)\)", text)]
    return side(m.group(1)), side(m.group(2))


def _core_sizes(args, in_dims):
    """Bind each core dimension name to its size; loop shapes of the arguments."""
    sizes, loops = {}, []
    for a, dims in zip(args, in_dims):
        shape = core.get_aval(a).shape
        if len(shape) < len(dims):
            raise ValueError(f"input with shape {shape} does not have enough dimensions for "
                             f"all core dimensions {dims}")
        loops.append(shape[:len(shape) - len(dims)])
        for name, n in zip(dims, shape[len(shape) - len(dims):]):
            if sizes.setdefault(name, n) != n:
                raise ValueError(f"inconsistent size for core dimension {name!r}: {n} vs "
                                 f"{sizes[name]}")
    return sizes, loops


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """`pyfunc` mapped over the broadcast loop dimensions of its positional arguments;
    positions in `excluded`, `None` arguments and keyword arguments pass through
    unmapped."""
    excluded = frozenset(excluded)
    if any(not isinstance(e, (int, str)) for e in excluded):
        raise TypeError(f"jnp.vectorize: excluded must be integers or strings, got {excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"excluded={excluded!r} contains negative numbers")
    in_dims = out_dims = None
    if signature is not None:
        in_dims, out_dims = parse_signature(signature)

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        dyn = [i for i in range(len(args)) if i not in excluded]
        dims = in_dims if in_dims is not None else [()] * len(dyn)
        if len(dims) != len(dyn):
            raise TypeError(f"wrong number of positional arguments: expected {len(dims)}, "
                            f"got {len(dyn)}")
        keep = [k for k, i in enumerate(dyn) if args[i] is not None]
        if any(dims[k] for k in range(len(dyn)) if k not in keep):
            raise ValueError(f"Cannot pass None where the signature {signature} has core "
                             "dimensions")
        dyn, dims = [dyn[k] for k in keep], [dims[k] for k in keep]
        arrs = [asarray_operand(args[i]) for i in dyn]
        sizes, loops = _core_sizes(arrs, dims)
        loop = uf.broadcast_shapes(*loops)
        n = int(np.prod(loop, dtype=np.int64))
        flat = []
        for a, d in zip(arrs, dims):
            core_shape = tuple(sizes[name] for name in d)
            a = uf.broadcast_to_shape(a, loop + core_shape)
            flat.append(lax.reshape(a, (n,) + core_shape))

        def one(*xs):
            full = list(args)
            for i, x in zip(dyn, xs):
                full[i] = x
            out = operators.call(pyfunc, *full, **kwargs)  # user code is converted
            if out_dims is not None:
                _check_outputs(out, out_dims, sizes)
            return out
        out = vmap(_Direct(one))(*flat)
        return tree_map(lambda o: lax.reshape(o, loop + core.get_aval(o).shape[1:]), out)
    return wrapped


def _check_outputs(out, out_dims, sizes):
    outs = out if len(out_dims) > 1 else (out,)
    if len(out_dims) > 1 and (not isinstance(out, tuple) or len(out) != len(out_dims)):
        raise TypeError(f"output must be a tuple of {len(out_dims)} arrays, got {out!r}")
    for o, dims in zip(outs, out_dims):
        shape = core.get_aval(o).shape
        if len(shape) != len(dims):
            raise ValueError(f"output shape {shape} does not match the core dimensions "
                             f"{dims} of the signature")
        for name, n in zip(dims, shape):
            if sizes.setdefault(name, n) != n:
                raise ValueError(f"inconsistent size for core dimension {name!r}: {n} vs "
                                 f"{sizes[name]}")
