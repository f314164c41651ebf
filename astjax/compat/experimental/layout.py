"""`jax.experimental.layout`: how an array is laid out in device memory. `Layout`
names a dimension order; `Format` pairs a layout with a sharding. astjax compiles
every array in the default (row-major) layout: these are the descriptions libraries
pass around, and asking `jit` for another layout is not supported."""
from __future__ import annotations


class Layout:
    """A device-local layout: dimensions listed from major to minor."""

    def __init__(self, major_to_minor, _tiling=None, _sub_byte_element_size_in_bits=0):
        self.major_to_minor = tuple(major_to_minor)
        self._tiling = _tiling

    def __eq__(self, other):
        return isinstance(other, Layout) and other.major_to_minor == self.major_to_minor

    def __hash__(self):
        return hash(self.major_to_minor)

    def __repr__(self):
        return f"Layout(major_to_minor={self.major_to_minor})"


class Format:
    """A layout (or None: the default) together with a sharding (or None)."""

    def __init__(self, layout=None, sharding=None):
        self.layout = layout
        self.sharding = sharding

    def __eq__(self, other):
        return (isinstance(other, Format) and other.layout == self.layout
                and other.sharding == self.sharding)

    def __hash__(self):
        return hash((self.layout, self.sharding))

    def __repr__(self):
        return f"Format({self.layout}, {self.sharding})"
