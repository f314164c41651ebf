"""`jax.experimental`: `io_callback` (and `pure_callback`), and `MutableArray`, a
mutable reference to an array (`mutable_array(x)`; read `ref[...]`, write
`ref[...] = v`), and `cur_qdd(x)`: a hijax value's quasi-dynamic data (its own; see
`astjax.hi_state`). astjax's references live outside transformations: they hold a
concrete array that Python code reads and replaces (a staged value written into one
escapes its transformation, as a tracer stored in a Python object does)."""
from astjax.callbacks_api import io_callback, pure_callback  # noqa: F401
from astjax import numpy as _jnp
from astjax.hi_state import cur_qdd  # noqa: F401


class MutableArray:
    """A mutable reference to an array: `ref[idx]` reads, `ref[idx] = v` writes
    (`ref[...] = v` replaces the whole value; its shape and dtype must not change)."""
    __slots__ = ("_value",)

    def __init__(self, value):
        self._value = _jnp.asarray(value)

    shape = property(lambda self: self._value.shape)
    dtype = property(lambda self: self._value.dtype)
    ndim = property(lambda self: self._value.ndim)
    size = property(lambda self: self._value.size)

    def get(self):
        """The current value."""
        return self._value

    def __getitem__(self, idx):
        return self._value if idx is Ellipsis else self._value[idx]

    def __setitem__(self, idx, value):
        new = _jnp.asarray(value, dtype=self._value.dtype)
        if idx is Ellipsis:
            if new.shape != self._value.shape:
                raise ValueError(f"cannot store a value of shape {new.shape} in a reference "
                                 f"of shape {self._value.shape}")
            self._value = new
        else:
            self._value = self._value.at[idx].set(new)

    def __repr__(self):
        return f"Ref({self._value!r})"


def mutable_array(init_val):
    """A new reference holding `init_val`."""
    return MutableArray(init_val)
