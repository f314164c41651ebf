"""JAX's `PartitionSpec` (also `astjax.P`): which mesh axes each dimension of an
array is split over, and which mesh axes it is unreduced / reduced over -- the
spec half of a `NamedSharding` (`astjax/sharding.py`), with JAX's canonical form,
repr and errors."""
from __future__ import annotations

__all__ = ["PartitionSpec"]


class _Unconstrained:
    """`PartitionSpec.UNCONSTRAINED`: let the partitioner choose this dimension."""
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self):
        return "UNCONSTRAINED"


def _axis_set(axes, name):
    """`unreduced=` / `reduced=` as a frozenset (JAX takes a set or frozenset only)."""
    if isinstance(axes, frozenset):
        return axes
    if not isinstance(axes, set):
        raise TypeError(f"{name} argument of PartitionSpec should of type `frozenset` or "
                        f"`set`. Got type {axes!r}")
    return frozenset(axes)


def _fs(axes):
    """A set of axis names as JAX's messages print it: `frozenset({'x'})`."""
    return repr(frozenset(axes))


class PartitionSpec:
    """Which mesh axes each array dimension is split over: one entry per leading
    dimension, each `None` (replicated), an axis name, a tuple of axis names, or
    `PartitionSpec.UNCONSTRAINED`. Trailing dimensions not named are replicated.

    `unreduced` / `reduced` (sets of Explicit mesh axes, JAX's): along an unreduced
    axis each device holds a partial sum of the value (a `reshard` to a spec
    without it sums them); a reduced axis marks a replicated value whose cotangent
    will be unreduced there."""
    UNCONSTRAINED = _Unconstrained()
    __slots__ = ("_partitions", "unreduced", "reduced")

    def __init__(self, *partitions, unreduced=frozenset(), reduced=frozenset()):
        parts = []
        for p in partitions:
            if isinstance(p, list):
                p = tuple(p)
            if isinstance(p, tuple):  # JAX's canonical form: ('x',) is 'x', () is None
                p = p[0] if len(p) == 1 else (p or None)
            if not (p is None or isinstance(p, (str, tuple, _Unconstrained))):
                raise TypeError(f"PartitionSpec entries must be None, a mesh axis name or a "
                                f"tuple of names, got {p!r}")
            parts.append(p)
        self._partitions = tuple(parts)
        self.unreduced = _axis_set(unreduced, "unreduced")
        self.reduced = _axis_set(reduced, "reduced")
        self._check_unreduced()

    def _check_unreduced(self):
        """JAX's checks of `unreduced` / `reduced` (ValueError)."""
        u, r = self.unreduced, self.reduced
        for name, axes in (("unreduced", u), ("reduced", r)):
            if None in axes:
                raise ValueError(f"{name} cannot contain None. All elements in {name} should "
                                 "refer to the mesh axes.")
        if u & r:
            raise ValueError("`unreduced` and `reduced` argument to PartitionSpec cannot "
                             f"overlap. Got unreduced: {_fs(u)} and reduced: {_fs(r)}")
        for entry in self._partitions:
            for a in PartitionSpec._axes(entry):
                for name, axes in (("unreduced", u), ("reduced", r)):
                    if a in axes:
                        raise ValueError(
                            f"partitions cannot overlap with {name} axes passed to "
                            f"PartitionSpec. Got partitions: {self._partitions!r} and "
                            f"{name} axes: {_fs(axes)}")

    @property
    def partitions(self):
        """The per-dimension entries (what `*spec` gives when nothing is unreduced)."""
        return self._partitions

    def _no_unreduced(self, what):
        if self.unreduced or self.reduced:
            raise ValueError(f"Using {what} is dangerous when PartitionSpec has non-empty "
                             "unreduced/reduced set. Please use "
                             + ("spec.partitions[...]" if what == "pspec[...]"
                                else "*spec.partitions"))

    def __iter__(self):
        self._no_unreduced("*pspec")
        return iter(self._partitions)

    def __len__(self):
        return len(self._partitions)

    def __getitem__(self, i):
        self._no_unreduced("pspec[...]")
        return self._partitions[i]

    def __eq__(self, other):
        return (isinstance(other, PartitionSpec) and self._partitions == other._partitions
                and self.unreduced == other.unreduced and self.reduced == other.reduced)

    def __hash__(self):
        return hash((self._partitions, self.unreduced, self.reduced))

    def __add__(self, other):
        if isinstance(other, PartitionSpec):
            return PartitionSpec(*self._partitions, *other._partitions,
                                 unreduced=self.unreduced | other.unreduced,
                                 reduced=self.reduced | other.reduced)
        if isinstance(other, tuple):
            self._no_tuple(other, "__add__")
            return PartitionSpec(*self._partitions, *other)
        return NotImplemented

    def __radd__(self, other):
        if isinstance(other, tuple):
            self._no_tuple(other, "__radd__")
            return PartitionSpec(*other, *self._partitions)
        return NotImplemented

    def _no_tuple(self, other, method):
        for name in ("unreduced", "reduced"):
            if getattr(self, name):
                raise TypeError(f"other {other!r} cannot be of instance `tuple` when self "
                                f"{self!r} has {name} in `{method}` of PartitionSpec.")

    def index(self, value):
        return self._partitions.index(PartitionSpec(value)._partitions[0])

    def count(self, value):
        return self._partitions.count(PartitionSpec(value)._partitions[0])

    def update(self, partitions=None, unreduced=None, reduced=None):
        """A copy with the given fields replaced."""
        return PartitionSpec(*(self._partitions if partitions is None else partitions),
                             unreduced=self.unreduced if unreduced is None else unreduced,
                             reduced=self.reduced if reduced is None else reduced)

    def __repr__(self):
        inner = repr(self._partitions)[1:-1]
        if not self.unreduced and not self.reduced:
            return f"P({inner})"
        extra = ", ".join(f"{n}={set(getattr(self, n))!r}" for n in ("unreduced", "reduced")
                          if getattr(self, n))
        inner = "" if not inner else f"{inner} " if inner.endswith(",") else f"{inner}, "
        return f"P({inner}{extra})"

    def _normalized(self, ndim):
        """The spec padded with `None` to `ndim` entries."""
        if len(self) > ndim:
            raise ValueError(f"PartitionSpec {self!r} has {len(self)} entries, more than the "
                             f"array's rank {ndim}")
        return self._partitions + (None,) * (ndim - len(self))

    @staticmethod
    def _axes(entry):
        if entry is None or isinstance(entry, _Unconstrained):
            return ()
        return (entry,) if isinstance(entry, str) else tuple(entry)
