"""The array operations the run-time operators stage, bound at the primitive level.

The front end sits below the public API (`astjax.lax`, `astjax.numpy`), so the few
operations `branch_ops`, `loop_ops` and `operators` stage are bound here directly,
with the parameters the public wrappers use: they stage the same equations as
`lax.convert_element_type`, `lax.full_like(x, 0)`, `lax.ne`, `lax.iota`, ... and as
`jnp.logical_and` / `logical_or` / `logical_not` / `maximum` / `minimum` / `where`
(NumPy broadcasting and JAX's dtype promotion, weak Python scalars included).
`StackedList` is the Python list a scanned loop's `lst.append(y)` builds: the rows of
one stacked output.
"""
from __future__ import annotations

import operator

import numpy as np

from .. import core, dtypes
from ..core import Tracer, bind
from ..errors import ArgumentTypeError, ShapeError
from ..primitives import elementwise as ew
from ..primitives import selection as sel
from ..primitives import slicing as sl
from ..primitives import structural as st


def _aval(x):
    return core.get_aval(x)


# ------------------------------------------------------------- lax-level operations


def convert(x, dt, weak_type=False):
    """`lax.convert_element_type`: a 0-d constant converts now (as JAX does for Python
    scalars), a staged value of another dtype or weak type stages a conversion."""
    dt = dtypes.canonicalize(dt)
    a = _aval(x)
    if isinstance(x, Tracer):
        if a.dtype == dt and a.weak_type == weak_type:
            return x
    elif a.ndim == 0 and not hasattr(x, "_buf") and core.current_builder() is not None:
        v = np.asarray(np.asarray(x).astype(dt))
        const = core.current_builder().const_tracer(v)
        if weak_type:
            const._var = core.Literal(v[()], const.aval.update(weak_type=True))
        return const
    return bind(st.convert_element_type_p, x, new_dtype=dt, weak_type=bool(weak_type))


def _broadcast_in_dim(x, shape, dims):
    if _aval(x).shape == shape and dims == tuple(range(len(shape))):
        return x
    return bind(st.broadcast_in_dim_p, x, shape=shape, broadcast_dimensions=dims, sharding=None)


def zeros_like(x):
    """`lax.full_like(x, 0)`: zeros of x's shape and (strong) dtype."""
    a = _aval(x)
    zero = convert(0, a.dtype)
    return _broadcast_in_dim(zero, tuple(int(d) for d in a.shape), ()) if a.shape else zero


def binary(p, x, y):
    """`lax.<p>(x, y)`: a Python scalar takes the other operand's dtype (weakly)."""
    if dtypes.is_weak_scalar(x) and not dtypes.is_weak_scalar(y):
        x = core.WeakConst(np.asarray(x, _aval(y).dtype)[()])
    elif dtypes.is_weak_scalar(y) and not dtypes.is_weak_scalar(x):
        y = core.WeakConst(np.asarray(y, _aval(x).dtype)[()])
    return bind(p, x, y)


def nonzero(x):
    """`lax.ne(x, lax.full_like(x, 0))`: a boolean test from a number."""
    return binary(ew.ne_p, x, zeros_like(x))


def iota(n):
    """`lax.iota(int32, n)`."""
    return bind(st.iota_p, dtype=dtypes.canonicalize(dtypes.int32), shape=(int(n),),
                dimension=0, sharding=None)


def slice_rows(x, start, limit, step):
    """`lax.slice_in_dim(x, start, limit, step)` along axis 0."""
    a = _aval(x)
    starts, limits = [start] + [0] * (a.ndim - 1), [limit] + list(a.shape[1:])
    return bind(sl.slice_p, x, start_indices=tuple(int(i) for i in starts),
                limit_indices=tuple(int(i) for i in limits),
                strides=None if step == 1 else tuple(int(s) for s in [step] + [1] * (a.ndim - 1)))


def row(x, i):
    """`lax.dynamic_index_in_dim(x, i, 0, keepdims=False)` for a staged int32 index."""
    a = _aval(x)
    zero = np.asarray(0, dtypes.canonicalize(dtypes.int32))[()]
    r = bind(sl.dynamic_slice_p, x, i, *[zero] * (a.ndim - 1),
             slice_sizes=(1,) + tuple(int(s) for s in a.shape[1:]))
    return bind(st.squeeze_p, r, dimensions=(0,))


def select(pred, on_true, on_false):
    """`lax.select` (`jnp.where` on operands of one dtype and shape)."""
    return bind(sel.select_n_p, pred, on_false, on_true)


# ---------------------------------------------- jnp-level (broadcasting, promotion)


def _operand(x):
    if isinstance(x, (Tracer, np.ndarray, np.generic, bool, int, float, complex,
                      core.WeakConst)) or hasattr(x, "_buf"):
        return x
    if isinstance(x, (list, tuple)):
        return np.asarray(x, dtypes.canonicalize(np.asarray(x).dtype))
    raise ArgumentTypeError(f"{type(x).__name__} object is not a valid argument for a jnp function",
                            hint="pass an array, a Python scalar, or call jnp.asarray first")


def _broadcast_to(x, shape):
    a = _aval(x)
    dims = tuple(range(len(shape) - a.ndim, len(shape)))
    keep = [i for i, d in enumerate(a.shape) if d == shape[dims[i]]]
    if len(keep) != a.ndim:   # size-1 axes that broadcast are squeezed away first
        x = bind(st.reshape_p, x, new_sizes=tuple(a.shape[i] for i in keep), dimensions=None,
                 sharding=None)
        dims = tuple(dims[i] for i in keep)
    return _broadcast_in_dim(x, shape, dims)


def promote(*args):
    """The operands at their common dtype (Python scalars as weak constants) and, where
    their shapes differ, broadcast to one shape (`jnp`'s binary-operator promotion)."""
    args = [_operand(a) for a in args]
    dt, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    out = []
    for x in args:
        a = _aval(x)
        if a.dtype != dt or (a.weak_type != weak and not dtypes.is_weak_scalar(x)):
            x = convert(x, dt, weak)
        elif dtypes.is_weak_scalar(x):
            x = core.WeakConst(np.asarray(x, dt))
        out.append(x)
    shapes = [_aval(x).shape for x in out]
    if any(s != shapes[0] for s in shapes):
        nd = max(len(s) for s in shapes)
        shape = []
        for i in range(nd):
            sizes = {s[i - nd + len(s)] for s in shapes if i - nd + len(s) >= 0} - {1}
            if len(sizes) > 1:
                raise ShapeError("shapes " + ", ".join(str(tuple(s)) for s in shapes)
                                 + " cannot be broadcast together")
            shape.append(sizes.pop() if sizes else 1)
        shape = tuple(shape)
        out = [x if s == () or s == shape else _broadcast_to(x, shape)
               for x, s in zip(out, shapes)]
    return out


def _to_bool(x):
    """`jnp.not_equal(x, 0)`."""
    x, zero = promote(x, 0)
    return binary(ew.ne_p, x, zero)


def logical(p, a, b):
    """`jnp.logical_and` (p = and_p) / `jnp.logical_or` (p = or_p)."""
    a, b = promote(a, b)
    if _aval(a).dtype != dtypes.bool_:
        a, b = _to_bool(a), _to_bool(b)
    return binary(p, a, b)


def logical_not(x):
    """`jnp.logical_not`."""
    x = _operand(x)
    if _aval(x).dtype != dtypes.bool_:
        x = _to_bool(x)
    return bind(ew.not_p, x)


def maximum(x, y):
    """`jnp.maximum`."""
    return binary(ew.max_p, *promote(x, y))


def minimum(x, y):
    """`jnp.minimum`."""
    return binary(ew.min_p, *promote(x, y))


# ------------------------------------------------------------- a list of stacked rows


class StackedList(list):
    """A Python list built by `lst.append(y)` in a scanned loop: its items are the
    rows of the stacked scan output. It behaves as the list Python builds: the first
    change or whole-list operation after the loop (`append`, `+`, `==`, ...) fills
    the list with the rows, and from then on it is that list. To pytrees it is a
    list of the rows (`pytree_as_list`)."""
    pytree_as_list = True

    def __init__(self, stacked):
        super().__init__()
        self._stacked = stacked
        self._n = _aval(stacked).shape[0]
        self._filled = False

    @property
    def stacked(self):
        """The stacked rows (what `jnp.stack(lst)` returns), while the list is unchanged."""
        return None if self._filled else self._stacked

    def _fill(self):
        if not self._filled:
            self._filled = True
            super().extend(self._stacked[i] for i in range(self._n))

    def __len__(self):
        return list.__len__(self) if self._filled else self._n

    def __getitem__(self, i):
        if self._filled:
            return list.__getitem__(self, i)
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        i = operator.index(i)
        if not -self._n <= i < self._n:
            raise IndexError("list index out of range")
        return self.stacked[i % self._n]

    def __iter__(self):
        if self._filled:
            return list.__iter__(self)
        return (self.stacked[i] for i in range(self._n))

    def __repr__(self):
        if self._filled:
            return list.__repr__(self)
        return f"StackedList({self._n} x {_aval(self.stacked).str_short(True)})"


def _filling(name):
    def method(self, *args):
        self._fill()
        return getattr(list, name)(self, *args)
    method.__name__ = name
    return method


for _name in ("append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
              "index", "count", "copy", "__setitem__", "__delitem__", "__iadd__", "__imul__",
              "__add__", "__mul__", "__rmul__", "__contains__", "__reversed__", "__eq__",
              "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
    setattr(StackedList, _name, _filling(_name))
