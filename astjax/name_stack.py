"""The name stack: the scopes (`named_scope`, `named_call`, a haiku module's name) and
transformations (`jvp`, `transpose`, `vmap`) an equation was staged in, as JAX keeps it
in `eqn.source_info.name_stack` (dm-haiku's `jaxpr_info` attributes equations to
modules by it), and the source-info contexts the transforms re-stage equations under.

A `NameStack` holds `Scope`s and `Transform`s, outermost first, and prints as JAX
prints it: scopes joined by '/', a transformation wrapping the scope entered right
inside it -- `(Transform jvp, Scope foo, Scope bar)` is `jvp(foo)/bar`, a
transformation with no scope inside is `jvp()`. The stack of the code running now is
per thread (`current_name_stack`); `core.Builder` records each equation's stack
relative to the builder (so a body's equations are named relative to the body, and
its `cond` / `scan` / `jit` equation carries the enclosing names), and the passes that
re-stage an equation put the running stack in front of the equation's own (JAX's
`eval_jaxpr`). The API's `jvp` / `grad` / `vmap` add their transformation around what
they stage; a rule running a pass on a body adds none, as in JAX."""
from __future__ import annotations

import functools
import threading
from typing import NamedTuple

from . import util

__all__ = ["Scope", "Transform", "NameStack", "EMPTY", "new_name_stack", "current_name_stack",
           "extend_name_stack", "transform_name_stack", "set_name_stack", "reset_name_stack",
           "source_info_context", "staged_info"]


class Scope(NamedTuple):
    """A named scope: printed as its name, one '/'-separated part."""
    name: str

    def wrap(self, parts: list) -> None:
        parts.append(self.name)


class Transform(NamedTuple):
    """A transformation: printed around the scope entered right inside it."""
    name: str

    def wrap(self, parts: list) -> None:
        if parts:
            parts[-1] = f"{self.name}({parts[-1]})"
        else:
            parts.append(f"{self.name}()")


class NameStack:
    """An immutable sequence of `Scope`s and `Transform`s, outermost first (JAX's
    `source_info_util.NameStack`)."""
    __slots__ = ("stack",)

    def __init__(self, stack=()):
        object.__setattr__(self, "stack", tuple(stack))

    def __setattr__(self, name, value):
        raise AttributeError("NameStack is immutable")

    def extend(self, name: str) -> "NameStack":
        """This stack with scope `name` inside it."""
        return NameStack(self.stack + (Scope(name),))

    def transform(self, name: str) -> "NameStack":
        """This stack with transformation `name` inside it."""
        return NameStack(self.stack + (Transform(name),))

    def __getitem__(self, idx: slice) -> "NameStack":
        return NameStack(self.stack[idx])

    def __len__(self):
        return len(self.stack)

    def __add__(self, other: "NameStack") -> "NameStack":
        return NameStack(self.stack + other.stack)

    def __radd__(self, other: "NameStack") -> "NameStack":
        return NameStack(other.stack + self.stack)

    def __eq__(self, other):
        return isinstance(other, NameStack) and self.stack == other.stack

    def __hash__(self):
        return hash(self.stack)

    def __repr__(self):
        return f"NameStack({self.stack!r})"

    def __str__(self) -> str:
        parts: list = []
        for elem in reversed(self.stack):   # innermost first: a transform wraps what follows
            elem.wrap(parts)
        return "/".join(reversed(parts))


EMPTY = NameStack()


def new_name_stack(name: str = "") -> NameStack:
    """A stack holding scope `name` (empty for '')."""
    return EMPTY.extend(name) if name else EMPTY


class _Current(threading.local):
    def __init__(self):
        self.stack = EMPTY
        self.infos: list = []   # the source-info contexts entered (`source_info_context`)


current = _Current()   # read once per staged equation (core.Builder.add_eqn)


def source_info_context(info) -> util.pushed:
    """Equations staged inside inherit `info` (a `SourceInfo`: the transforms re-stage an
    equation under its own), and its name stack after the running one."""
    return util.pushed(current.infos, info)


def current_name_stack() -> NameStack:
    """The name stack of the code running in this thread, outermost first."""
    return current.stack


class _Set:
    """Run the code inside (a `with` block or a decorated function) under a stack made
    from the current one by `make`."""
    __slots__ = ("make", "prev")

    def __init__(self, make):
        self.make = make

    def __enter__(self) -> NameStack:
        self.prev = current.stack
        current.stack = stack = self.make(self.prev)
        return stack

    def __exit__(self, *exc):
        current.stack = self.prev
        return False

    def __call__(self, fun):
        make = self.make

        @functools.wraps(fun)
        def wrapper(*args, **kwargs):
            with _Set(make):
                return fun(*args, **kwargs)
        return wrapper


def extend_name_stack(name: str) -> _Set:
    """Inside: the current stack with scope `name` inside it."""
    return _Set(lambda s: s.extend(name))


def transform_name_stack(name: str) -> _Set:
    """Inside: the current stack with transformation `name` inside it."""
    return _Set(lambda s: s.transform(name))


def set_name_stack(stack: NameStack) -> _Set:
    """Inside: exactly `stack`."""
    return _Set(lambda s: stack)


def reset_name_stack() -> _Set:
    """Inside: the empty stack."""
    return _Set(lambda s: EMPTY)


def staged_info(info, base: int, own_context: bool, fresh: bool):
    """The source info (`errors.SourceInfo`) of an equation a builder stages now, from
    `info` (its source-info context's, or the user's frame): named by the scopes opened
    since the builder was made (`base` of them were open then), followed -- JAX's
    `eval_jaxpr` -- by those of the equation being re-staged when its context was
    entered in this builder (`own_context`; a context from an enclosing builder lends
    its location but not its names, as a body's names are relative to the body).
    `fresh`: `info` is a new object of this equation's alone, set in place."""
    cur = current.stack
    ns = cur[base:] if len(cur) > base else EMPTY
    if own_context and info.name_stack:
        ns = ns + info.name_stack
    if ns == info.name_stack:
        return info
    if fresh:
        info.name_stack = ns
        return info
    return info.replace(name_stack=ns)
