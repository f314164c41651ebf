"""The tables a library fills to make a Python type of its own an array value, as it
does under JAX (tfp's JAX substrate registers its `Variable` in both):

- `pytype_aval_mappings` (`jax.core.pytype_aval_mappings`): type -> the abstract value
  of its instances, read by `core.get_aval` (so by `jax.typeof` and a `jit` argument);
- `canonicalize_value_handlers` (registered through
  `jax.interpreters.xla.canonicalize_dtype_handlers`): type -> the host array an
  instance stands for, which the runtime copies to the device (`jit` argument,
  `device_put`).

`pytype_aval_mappings` is JAX's one table: it also holds the hijax types
(`jax.experimental.hijax.register_hitype` writes it; `hi_state` reads their entries).
It starts with astjax's own entries (NumPy arrays and scalars, Python scalars, staged
values; `core` installs them): a library reads one to reuse it for its type, as JAX's
table allows. A type is looked up through its MRO, the answer cached per type until
the next registration; until a library registers a type, no lookup runs at all
(`extended`, `registered_types`).
"""
from __future__ import annotations

from typing import Any, Callable

_aval_cache: dict[type, Any] = {}
_library_cache: dict[type, Any] = {}
_handler_cache: dict[type, Any] = {}
_state = {"extended": False, "library": False}
_builtin: dict[type, Any] = {}   # astjax's own entries of `pytype_aval_mappings`


def extended() -> bool:
    """Whether a library has registered a type in either table."""
    return _state["extended"]


def _changed():
    _aval_cache.clear()
    _library_cache.clear()
    _handler_cache.clear()
    _state["library"] = any(_builtin.get(t) is not fn for t, fn in pytype_aval_mappings.items())


class _Table(dict):
    """A dict whose writes count as registrations (they reset the MRO caches and turn
    the lookups on)."""

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        _state["extended"] = True
        _changed()

    def __delitem__(self, key):
        super().__delitem__(key)
        _changed()

    def update(self, *args, **kwargs):
        for k, v in dict(*args, **kwargs).items():
            self[k] = v

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key, *default):
        out = super().pop(key, *default)
        _changed()
        return out


pytype_aval_mappings: dict[type, Callable[[Any], Any]] = _Table()
canonicalize_value_handlers: dict[type, Callable[[Any], Any]] = _Table()


def install_builtin(entries: dict) -> None:
    """Put astjax's own entries in `pytype_aval_mappings` (not registrations)."""
    _builtin.update(entries)
    dict.update(pytype_aval_mappings, entries)
    _changed()


def registered_types() -> bool:
    """Whether `pytype_aval_mappings` holds an entry that is not astjax's own (a type a
    library or `hijax.register_hitype` registered, or a builtin entry replaced)."""
    return _state["library"]


def _lookup(table, cache, typ):
    try:
        return cache[typ]
    except KeyError:
        pass
    fn = next((table[t] for t in typ.__mro__ if t in table), None)
    cache[typ] = fn
    return fn


def aval_rule(typ: type):
    """The function giving the abstract value of a `typ` instance, or None."""
    return _lookup(pytype_aval_mappings, _aval_cache, typ)


def library_rule(typ: type):
    """The rule `aval_rule(typ)` finds when it is not one of astjax's own, else None."""
    try:
        return _library_cache[typ]
    except KeyError:
        pass
    t = next((t for t in typ.__mro__ if t in pytype_aval_mappings), None)
    fn = None if t is None else pytype_aval_mappings[t]
    if fn is not None and _builtin.get(t) is fn:
        fn = None
    _library_cache[typ] = fn
    return fn


def host_value(x):
    """`x` as the host value copied to a device: a registered handler's result for its
    type, else `x` itself."""
    if not _state["extended"]:
        return x
    fn = _lookup(canonicalize_value_handlers, _handler_cache, type(x))
    return x if fn is None else fn(x)
