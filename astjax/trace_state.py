"""What is current while a program runs or is staged -- the thread-local state `bind`
reads (`core._state`: the staging builders, the named axes, the libraries' traces made
current) -- and JAX's `jax.core` names that change or describe it:
`ensure_compile_time_eval` and `eval_context`, the `Trace` base class libraries
subclass, and the type aliases `ParamDict` and `Value`."""
from __future__ import annotations

import contextlib
import threading
from typing import Any

ParamDict = dict[str, Any]   # an equation's params (JAX's alias)
Value = Any                  # a concrete value (JAX's alias)


class _State(threading.local):
    def __init__(self):
        self.builders: list = []
        self.axis_frames: list = []
        # inside `ensure_compile_time_eval`: operations on known values run now
        self.compile_time_eval = False
        # inside `eval_context`: how many builders were staging when it was entered (an
        # operand of theirs is an error there; a builder made inside stages as usual)
        self.eval_only: int | None = None
        # libraries' `Trace`s made current, innermost last (None: astjax's own again)
        self.user_traces: list = []
        # the depths of the builders staging an eager transformation's own function
        # (`grad(f)(x)`, `vmap(f)(x)` outside `jit`): an operation there none of whose
        # operands is staged runs now, as JAX runs it op by op (`core.bind`)
        self.op_by_op: frozenset = frozenset()


_state = _State()
# thread id -> how many builders that thread's stagings have pushed (`push_builder`).
# jit's fast paths read this module-level dict before the thread-local `_state.builders`
# (a threading.local attribute costs several dict lookups): empty, no thread is staging
# (`frontend/branch_ops._reenter` re-pushes a branch's builder only inside a staging).
staging_threads: dict[int, int] = {}


def push_builder(b) -> int:
    """Push staging builder `b` on this thread's stack (`core.new_builder`), counted in
    `staging_threads`; returns the thread's id, for `pop_builder`."""
    tid = threading.get_ident()
    staging_threads[tid] = staging_threads.get(tid, 0) + 1
    _state.builders.append(b)
    return tid


def pop_builder(tid: int) -> None:
    """Pop the innermost builder of thread `tid` (this thread), uncounted."""
    _state.builders.pop()
    n = staging_threads.pop(tid) - 1
    if n:
        staging_threads[tid] = n


@contextlib.contextmanager
def _evaluating(eval_only):
    old = _state.compile_time_eval, _state.eval_only
    _state.compile_time_eval, _state.eval_only = True, eval_only
    try:
        yield
    finally:
        _state.compile_time_eval, _state.eval_only = old


def ensure_compile_time_eval():
    """Inside, an operation whose operands are all known (not staged) values runs now
    and returns a concrete array even while a function is being staged; operations
    on staged values are staged as usual."""
    return _evaluating(_state.eval_only)


@contextlib.contextmanager
def eval_context():
    """A context manager: inside, operations run now on concrete values, whatever is
    being staged around it (JAX's evaluation trace made current); a staged value used
    there is an `UnexpectedTracerError`. A library's `Trace` made current outside is
    set aside inside."""
    _state.user_traces.append(None)
    try:
        with _evaluating(len(_state.builders)):
            yield
    finally:
        _state.user_traces.pop()


class Trace:
    """JAX's base class of tracing interpreters, which libraries subclass (haiku's
    `experimental.to_dot`). Made current by `set_current_trace`, a subclass's
    `process_primitive(primitive, tracers, params)` receives every primitive
    application (`bind`) inside the block -- the values are its own tracers
    (`jax.core.Tracer(trace, aval)` subclasses) or plain ones -- and re-binds on its
    parent with `primitive.bind_with_trace(parent, vals, avals, params)`. A body astjax
    stages meanwhile (a `lax.scan`'s, a `custom_jvp`'s, ...) is staged by astjax; the
    trace's tracers it closes over become operands of the one equation, which the
    trace then receives, as JAX lifts them."""
    alive = True   # (its tracers are captured by inner builders as outer values)

    def __init__(self):
        pass

    def process_primitive(self, primitive, tracers, params):
        """Interpret one primitive application (for subclasses)."""
        raise NotImplementedError(f"{type(self).__name__} must define process_primitive")
