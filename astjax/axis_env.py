"""The named mapped axes around the code being staged, batched or lowered (`vmap` /
`pmap` axis names, their sizes): the frames `core` keeps in `trace_state._state`, and
the queries and the context that read and push them (`core.axis_size`,
`core.extend_axis_env`)."""
from __future__ import annotations

from . import util
from .errors import AxisNameError
from .shape_poly import canonical_dim
from .trace_state import _state


class AxisFrame:
    """One named mapped axis around the code being staged, batched or lowered. `kind`
    "vmap": batched away by `batch_jaxpr`; "pmap": one replica per device, so
    collectives over it lower to cross-replica ops. The name may be None (an
    unnamed vmap: collectives cannot refer to it)."""
    __slots__ = ("name", "size", "kind")

    def __init__(self, name, size, kind="vmap"):
        self.name, self.size, self.kind = name, canonical_dim(size), kind

    def __repr__(self):
        return f"AxisFrame({self.name!r}, {self.size}, {self.kind!r})"


def axis_frame() -> AxisFrame:
    """The innermost axis: while `batch_jaxpr` runs, the axis being batched."""
    return _state.axis_frames[-1]


def axis_frames(kind=None) -> list:
    """The axes in scope, outermost first (only those of `kind` if given)."""
    return [f for f in _state.axis_frames if kind is None or f.kind == kind]


_INNERMOST = object()


def axis_size(name=_INNERMOST, loc=None) -> int:
    """The size of the innermost axis called `name` (a located AxisNameError if none
    is in scope); without a name, the size of the innermost axis."""
    if name is _INNERMOST:
        return _state.axis_frames[-1].size
    for f in reversed(_state.axis_frames):
        if f.name is not None and f.name == name:
            return f.size
    names = [f.name for f in _state.axis_frames if f.name is not None]
    raise AxisNameError(f"unbound axis name: {name!r}; "
                        + (f"the axes in scope are {names}" if names else
                           "no named axis is in scope here (collectives need to run under "
                           "vmap(..., axis_name=...) or pmap(..., axis_name=...))"), loc=loc)


def innermost_axis_name():
    """The name of the innermost mapped axis (None if unnamed or none is in scope)."""
    return _state.axis_frames[-1].name if _state.axis_frames else None


def extend_axis_env(name, size, kind="vmap") -> util.pushed:
    """Push a named mapped axis (see `AxisFrame`) for the staging inside."""
    return util.pushed(_state.axis_frames, AxisFrame(name, size, kind))
