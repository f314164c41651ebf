"""`jax._src.state.types`: `AbstractRef`, the abstract value of a mutable array
reference. astjax stages no references (no `Ref` values exist inside its
transformations), so no staged value is an `AbstractRef`; libraries test
`isinstance(jax.typeof(x), AbstractRef)` to tell references from arrays, and get
False for every astjax value, as JAX does for plain arrays."""
from __future__ import annotations


class AbstractRef:
    """The aval of a reference to an array of aval `inner_aval`."""
    __slots__ = ("inner_aval", "memory_space", "kind")

    def __init__(self, inner_aval, memory_space=None, kind=None):
        self.inner_aval = inner_aval
        self.memory_space = memory_space
        self.kind = kind

    shape = property(lambda self: self.inner_aval.shape)
    dtype = property(lambda self: self.inner_aval.dtype)
    ndim = property(lambda self: len(self.inner_aval.shape))

    def __eq__(self, other):
        return (type(other) is AbstractRef and other.inner_aval == self.inner_aval
                and other.memory_space == self.memory_space)

    def __hash__(self):
        return hash((AbstractRef, self.inner_aval, self.memory_space))

    def __repr__(self):
        return f"Ref{{{self.inner_aval.str_short()}}}"
