"""A mapping from primitives to one of their rule slots: `ad.primitive_jvps[p] = f`
sets `p.jvp`. Shared by the `astjax.interpreters` modules."""
from __future__ import annotations

from collections.abc import MutableMapping

from .. import core


class RuleView(MutableMapping):
    """primitive -> its rule of `kind` (only primitives that have one are keys)."""

    def __init__(self, kind: str, on_set=None):
        self.kind = kind
        self.on_set = on_set

    def _check(self, p):
        if not isinstance(p, core.Primitive):
            raise TypeError(f"rule tables are keyed by Primitive objects, got {p!r}")

    def __getitem__(self, p):
        self._check(p)
        r = getattr(p, self.kind)
        if r is None:
            raise KeyError(p)
        return r

    def __setitem__(self, p, rule):
        self._check(p)
        setattr(p, self.kind, rule)
        p.unsupported.pop(self.kind, None)
        if self.on_set is not None:
            self.on_set(p)

    def __delitem__(self, p):
        self._check(p)
        if getattr(p, self.kind) is None:
            raise KeyError(p)
        setattr(p, self.kind, None)

    def _all(self):
        """astjax's own primitives having the rule (iteration is for inspection)."""
        return [p for p in core.primitives.values() if getattr(p, self.kind) is not None]

    def __iter__(self):
        return iter(self._all())

    def __len__(self):
        return len(self._all())

    def __contains__(self, p):
        return isinstance(p, core.Primitive) and getattr(p, self.kind) is not None
