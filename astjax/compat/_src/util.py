"""`jax._src.util`: the small helpers JAX tutorials and libraries import from it
(`safe_map` / `safe_zip`: `map` / `zip` that insist on equal lengths, and a few more)."""
from __future__ import annotations

import functools

__all__ = ["safe_map", "safe_zip", "unzip2", "unzip3", "split_list", "concatenate",
           "prod", "tuple_insert", "tuple_delete", "cache", "wraps"]


def safe_zip(*args):
    """`zip` of sequences that must all have the same length (a list)."""
    args = [list(a) for a in args]
    n = len(args[0]) if args else 0
    for arg in args[1:]:
        if len(arg) != n:
            raise AssertionError(f"length mismatch: {list(map(len, args))}")
    return list(zip(*args))


def safe_map(f, *args):
    """`map` over sequences that must all have the same length (a list)."""
    args = [list(a) for a in args]
    n = len(args[0]) if args else 0
    for arg in args[1:]:
        if len(arg) != n:
            raise AssertionError(f"length mismatch: {list(map(len, args))}")
    return list(map(f, *args))


def unzip2(pairs):
    """[(a, b), ...] -> ((a, ...), (b, ...))."""
    firsts, seconds = [], []
    for a, b in pairs:
        firsts.append(a)
        seconds.append(b)
    return tuple(firsts), tuple(seconds)


def unzip3(triples):
    """[(a, b, c), ...] -> ((a, ...), (b, ...), (c, ...))."""
    xs, ys, zs = [], [], []
    for x, y, z in triples:
        xs.append(x)
        ys.append(y)
        zs.append(z)
    return tuple(xs), tuple(ys), tuple(zs)


def split_list(args, ns):
    """Split `args` into pieces of the lengths `ns`, plus the rest."""
    args = list(args)
    out = []
    for n in ns:
        out.append(args[:n])
        args = args[n:]
    out.append(args)
    return out


def concatenate(xs):
    """The lists of `xs` joined into one list."""
    return [x for seq in xs for x in seq]


def prod(xs):
    """The product of an iterable of ints (1 when empty)."""
    out = 1
    for x in xs:
        out *= x
    return out


def tuple_insert(t, idx, val):
    """`t` with `val` inserted at position `idx`."""
    return tuple(t[:idx]) + (val,) + tuple(t[idx:])


def tuple_delete(t, idx):
    """`t` without its element at position `idx`."""
    return tuple(t[:idx]) + tuple(t[idx + 1:])


def cache(max_size=4096, trace_context_in_key=True):
    """A `functools.lru_cache` decorator (JAX also keys on its trace context)."""
    del trace_context_in_key
    return functools.lru_cache(maxsize=max_size)


wraps = functools.wraps
