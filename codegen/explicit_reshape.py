"""JAX's sharding rule of `reshape` on a mesh of Explicit axes (`codegen/explicit.py`
runs it): a change of singleton dimensions only keeps the layout; one dimension split
into several, or several merged into one, takes the mesh axes along major-first,
each new dimension taking axes while they divide it; anything else (or a split of a
sharded dimension given `dimensions`) is JAX's "This reshape is not supported"
ShardingTypeError, which asks for `out_sharding`."""
from __future__ import annotations

import math

from astjax import sharding_impls as shd

__all__ = ["reshape_rule"]


def _err(msg):
    raise shd.ShardingTypeError(msg)


def _axes_of(entry):
    return shd.PartitionSpec._axes(entry)


def reshape_rule(t, new_sizes, dimensions):
    """JAX's reshape rule: a singleton-only change, or one dimension split into
    several / several merged into one, the mesh axes following major-first."""
    if all(e is None for e in t.spec):
        return [None] * len(new_sizes)
    shape, new_sizes = tuple(t.aval.shape), tuple(new_sizes)

    def fail():
        _err("This reshape is not supported. Please specify the sharding of the output via "
             "the `out_sharding` argument of jax.lax.reshape. Got operand type: "
             f"{t.str_short()}, new sizes: {new_sizes}")
    if [n for n in shape if n != 1] == [n for n in new_sizes if n != 1]:
        it = iter(e for n, e in zip(shape, t.spec) if n != 1)
        return [None if n == 1 else next(it) for n in new_sizes]
    split = _one_axis(shape, new_sizes, fail)
    if split is not None:
        out = []
        for group, e in zip(split, t.spec):
            if not isinstance(group, list):
                out.append(e)
            elif e is None:
                out += [None] * len(group)
            elif dimensions is None:
                out += _split_axes(t.mesh, _axes_of(e), group, fail)
            else:
                fail()
        return out
    merge = _one_axis(new_sizes, shape, fail)
    if merge is None:
        fail()
    it = iter(t.spec)
    out = []
    for n, group in zip(new_sizes, merge):
        if not isinstance(group, list):
            out.append(next(it))
            continue
        parts = [next(it) for _ in group]
        if all(e is None for e in parts):
            out.append(None)
            continue
        if dimensions is not None:
            fail()
        while parts and parts[-1] is None:
            parts.pop()
        if None in parts:
            fail()
        out += _split_axes(t.mesh, [a for e in parts for a in _axes_of(e)], [n], fail)
    return out


def _split_axes(mesh, axes, sizes, fail):
    """Mesh axes (major first) over the dimensions `sizes`: each takes axes while
    they divide it."""
    it = iter(axes)
    out = []
    for size in sizes:
        got = []
        while size > 1:
            a = next(it, None)
            if a is None:
                break
            size, rem = divmod(size, mesh.shape[a])
            if rem:
                fail()
            got.append(a)
        out.append(None if not got else got[0] if len(got) == 1 else tuple(got))
    if next(it, None) is not None:
        fail()
    return out


def _one_axis(shape, new_sizes, fail):
    """Per dimension of `shape`: its size, or the list of `new_sizes` it splits into
    (exactly one dimension may split); None when `new_sizes` is no such split."""
    if len(new_sizes) <= len(shape):
        return None
    ones = 0
    while shape and new_sizes and shape[-1] == 1 and new_sizes[-1] == 1:
        ones, shape, new_sizes = ones + 1, shape[:-1], new_sizes[:-1]
    i = j = count = 0
    out = []
    while j < len(new_sizes):
        if i >= len(shape):
            return None
        if shape[i] == new_sizes[j]:
            out.append(shape[i])
        else:
            count += 1
            if count > 1:
                fail()
            group = [new_sizes[j]]
            nj, ni = j + 1, i + 1
            while math.prod(group) != shape[i] or (nj < len(new_sizes)
                                                   and new_sizes[nj] == 1):
                if math.prod(group) > shape[i]:
                    return None
                if (math.prod(group) == shape[i] and ni < len(shape)
                        and new_sizes[nj] == shape[ni]):
                    break
                j += 1
                if j >= len(new_sizes):
                    return None
                group.append(new_sizes[j])
                nj += 1
            out.append(group)
        i += 1
        j += 1
    if i != len(shape):
        return None
    return out + [1] * ones
