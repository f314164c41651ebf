"""Small helpers every layer shares: `split_list` and the one `Namer`.

A `Namer` hands out fresh names in one of four styles, one per place astjax names
things:

- ``"letters"``: ``a, b, ..., z, ba, bb, ...`` -- jaxpr variables as JAX prints them;
- ``"ssa"``: ``%0, %1, ...`` -- StableHLO values;
- ``"counter"``: ``<prefix><base>_<n>`` with one running counter -- the front end's
  generated names (``ag__fn_true_3``), unique whatever the base;
- ``"dedup"``: the base itself if free, else ``base_1``, ``base_2``, ... -- readable
  names in printed source (``x``, ``x_1``), never one of ``reserved``.

`namer(obj)` memoizes: the same object always gets the same name.

`WeakIdMap` is the cache keyed by an object's identity for as long as it lives.

`pushed(stack, item)` is the one context that keeps `item` on top of a stack of what
is current (source infos, user traces, mapped axes, builders) inside a `with` block.

`WrappedFun` is JAX's `lu.WrappedFun` (served as `jax.extend.linear_util.WrappedFun`):
a function with fixed keyword parameters, as JAX's internal APIs take and hand out.
"""
from __future__ import annotations

import functools
import re
import weakref


def split_list(xs, *sizes):
    """`split_list([1, 2, 3, 4], 1, 2) == [[1], [2, 3], [4]]`: consecutive pieces of
    the given sizes, then the rest."""
    out, i = [], 0
    for n in sizes:
        out.append(list(xs[i:i + n]))
        i += n
    out.append(list(xs[i:]))
    return out


class pushed:
    """`with pushed(stack, item):` -- `item` on top of the list `stack` inside the block,
    popped however the block is left. (A class, not a generator context manager: the
    staging passes enter these once per equation.)"""
    __slots__ = ("stack", "item")

    def __init__(self, stack: list, item):
        self.stack, self.item = stack, item

    def __enter__(self):
        self.stack.append(self.item)

    def __exit__(self, *exc):
        self.stack.pop()


def _letters(n: int) -> str:
    s = ""
    while not s or n:
        n, i = divmod(n, 26)
        s = chr(97 + i) + s
    return s


class Namer:
    """Fresh names in one style (see the module docstring)."""

    def __init__(self, style: str = "dedup", prefix: str = "", reserved=()):
        if style not in ("letters", "ssa", "counter", "dedup"):
            raise ValueError(f"unknown naming style {style!r}")
        self.style, self.prefix = style, prefix
        self.counter = 0
        self.used: set[str] = set(reserved)
        self.names: dict = {}

    def fresh(self, base: str = "") -> str:
        if self.style == "letters":
            name = _letters(self.counter)
        elif self.style == "ssa":
            name = f"%{self.counter}"
        elif self.style == "counter":
            name = f"{self.prefix}{base}_{self.counter + 1}"
        else:
            name = self._dedup(base)
        self.counter += 1
        self.used.add(name)
        return name

    def _dedup(self, base: str) -> str:
        if base not in self.used:
            return base
        root = re.sub(r"_\d+$", "", base) or base
        sep = "" if root.endswith("_") else "_"
        k = 1
        while f"{root}{sep}{k}" in self.used:
            k += 1
        return f"{root}{sep}{k}"

    def __call__(self, obj, base: str = "") -> str:
        """The name of `obj`, fresh the first time it is asked for."""
        name = self.names.get(obj)
        if name is None:
            name = self.names[obj] = self.fresh(base)
        return name


class WeakIdMap:
    """A mapping keyed by the *identity* of weak-referenceable objects (code objects,
    functions), holding each key weakly: an entry goes when its key dies. What a cache
    of code objects needs: a lookup never hashes the key (CPython walks a code
    object's names and constants per hash, issue 14), equal code objects of other
    files stay apart, and a function its user dropped takes its entries with it (as
    JAX's `weakref_lru_cache`). A value must not refer back to its key, or the entry
    lives as long as the map."""
    __slots__ = ("entries", "__weakref__")

    def __init__(self):
        self.entries: dict = {}   # id(key) -> (weak reference to key, value): read only

    def get(self, key, default=None):
        e = self.entries.get(id(key))
        return e[1] if e is not None and e[0]() is key else default

    def __contains__(self, key):
        e = self.entries.get(id(key))
        return e is not None and e[0]() is key

    def __setitem__(self, key, value):
        k, this = id(key), weakref.ref(self)

        def drop(ref):
            m = this()
            if m is not None and m.entries.get(k, (None,))[0] is ref:
                del m.entries[k]
        self.entries[k] = (weakref.ref(key, drop), value)

    def pop(self, key, default=None):
        """Remove `key`'s entry; its value, else `default`."""
        if key not in self:
            return default
        return self.entries.pop(id(key))[1]

    def clear(self):
        self.entries.clear()

    def __len__(self):
        return len(self.entries)


def hashable(x) -> bool:
    """Whether `x` can key a cache (`hash(x)` succeeds)."""
    try:
        hash(x)
    except TypeError:
        return False
    return True


def wraps_function(wrapper, fun) -> None:
    """Make the transformation object `wrapper` look like `fun`, as JAX's transformations
    do (`functools.update_wrapper`: name, docstring, `__wrapped__`), and carry `fun`'s
    own attributes: JAX copies the function's `__dict__` (dm-haiku finds a transformed
    function's original through `jit(f.init)._original_fn`). An attribute the wrapper
    has already (its own state) is kept. When `fun` is itself such a wrapper, only what
    it carries of its function and the public attributes set on it are copied, never
    its own private state made later (`grad(grad(f))` sharing `grad(f)`'s eager
    program, JAX's wrappers hold theirs outside `__dict__`)."""
    functools.update_wrapper(wrapper, fun, updated=())
    own = wrapper.__dict__
    theirs = getattr(fun, "__dict__", {})
    carried = theirs.get(_CARRIED)
    copied = []
    for k, v in theirs.items():
        if k not in own and k != _CARRIED and (
                carried is None or k in carried or not k.startswith("_")):
            own[k] = v
            copied.append(k)
    own[_CARRIED] = frozenset(copied)


_CARRIED = "_astjax_carried"   # a wrapper's attributes copied from its function


class WrappedFun:
    """A function with fixed keyword parameters; `call_wrapped(*args)` runs it."""

    def __init__(self, f, params=None, debug_info=None):
        self.f = f
        self.params = dict(params or {})
        self.debug_info = debug_info

    def call_wrapped(self, *args):
        return self.f(*args, **self.params)

    __call__ = call_wrapped

    def __repr__(self):
        return f"Wrapped function: {getattr(self.f, '__name__', self.f)!r}"
