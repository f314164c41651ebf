"""`astjax.extend.core`: JAX's extension-facing IR names over astjax's own IR.

`Primitive` is astjax's `core.Primitive` as a library defines one: `def_impl`,
`def_abstract_eval` (also the effectful form), `multiple_results`, `bind`. Its rules
are set through `astjax.interpreters.{ad, batching, mlir}` with JAX's signatures,
which are astjax's own. Until a lowering is registered, the impl is its lowering (the
impl is a function of `jnp`/`lax` operations, staged like any library code), and it
prints in `astjax.source` as a call of the primitive's `bind`."""
from __future__ import annotations

from contextlib import contextmanager, nullcontext
from contextvars import ContextVar

from .. import core, tree_util
from ..errors import NotImplementedInAstjaxError
from ..ir import ClosedJaxpr, Eqn, Jaxpr, Literal, ShapedArray, Var  # noqa: F401
from ..ir import TokenAval as AbstractToken  # noqa: F401
from ..primitives.ffi_call import Token  # noqa: F401
from ..interpreters.mlir import lower_fun
from ..pyast import call
from ..trace_state import Trace  # noqa: F401  (jax.extend.core.Trace)
from . import core_primitives as primitives  # noqa: F401  (jax.extend.core.primitives)

__all__ = ["Primitive", "Jaxpr", "ClosedJaxpr", "Var", "Literal", "ShapedArray",
           "JaxprEqn", "DropVar", "mapped_aval", "unmapped_aval", "get_opaque_trace_state",
           "jaxpr_as_fun", "Effect", "Effects", "no_effects", "Trace", "TraceTag",
           "take_current_trace", "set_current_trace", "find_top_trace", "AbstractToken", "Token",
           "primitives", "valid_jaxtype"]

# a package (no submodule files of its own), as JAX's `jax.extend.core` is: `from
# jax.extend.core.primitives import call_p` (numpyro) imports through it once
# `install_as_jax` serves `jax.extend.core.primitives`
__path__: list[str] = []

JaxprEqn = Eqn  # one equation of a jaxpr: primitive, invars, outvars, params


def valid_jaxtype(x) -> bool:
    """Whether `x` is a value JAX computes with: an array (typed PRNG keys included), a
    staged value, a NumPy array or scalar of a supported dtype, or a Python scalar --
    not None, a container, a string or another object."""
    try:
        core.get_aval(x)
    except TypeError:
        return False
    return True


class DropVar(Var):
    """An equation output nobody reads (JAX prints it `_`). astjax's IR names every
    output, so no variable of a staged jaxpr is a DropVar; code that skips them
    (`isinstance(v, DropVar)`) reads every output."""


class Effect:
    """Base of side-effect kinds a primitive's effectful abstract eval may report
    (JAX's `jax.extend.core.Effect`). astjax tracks effects as a Primitive flag
    (`effectful`), not as values: libraries subclass this to name theirs."""

    def __repr__(self):
        return type(self).__name__

    def __eq__(self, other):
        return type(other) is type(self)

    def __hash__(self):
        return hash(type(self))


Effects = frozenset
no_effects: frozenset = frozenset()


class Primitive(core.Primitive):
    """A primitive defined outside astjax (JAX's `jax.extend.core.Primitive`)."""

    def __init__(self, name: str):
        super().__init__(name, register=False)
        self.source = _bind_source

    def missing_rule_error(self, kind, platform="cpu"):
        """The error JAX raises when a transformation needs a rule of `kind` this
        primitive lacks: exactly NotImplementedError, as JAX's docs test."""
        if kind == "lowering":
            return NotImplementedError(f"MLIR translation rule for primitive '{self.name}' "
                                       f"not found for platform {platform}")
        what = {"jvp": "Differentiation rule", "batch": "Batching rule",
                "transpose": "Transpose rule (for reverse-mode differentiation)",
                "abstract_eval": "Abstract evaluation"}[kind]
        return NotImplementedError(f"{what} for '{self.name}' not implemented")

    def def_impl(self, impl):
        """The eager evaluation rule: a function of arrays (usually `jnp` code)."""
        self.impl = impl
        if self.lowering is None:   # (eager transformations only: see _LoweringFromImpl)
            self.lowering = _LoweringFromImpl(self)
        return impl

    def def_abstract_eval(self, abstract_eval):
        """avals -> aval (or a list of avals when `multiple_results`)."""
        self.abstract_eval = abstract_eval
        return abstract_eval

    def def_effectful_abstract_eval(self, effectful_abstract_eval):
        """avals -> (aval(s), effects); astjax tracks no effects, so only the
        avals are kept."""
        def abstract_eval(*avals, **params):
            out, _effects = effectful_abstract_eval(*avals, **params)
            return out
        self.abstract_eval = abstract_eval
        return effectful_abstract_eval

    def bind(self, *args, **params):
        """Stage an equation inside a transformation (or hand it to a library's `Trace`
        made current); outside, run the impl."""
        traces = core._state.user_traces
        if core.current_builder() is None and not (traces and traces[-1] is not None):
            if self.impl is None:   # JAX's exact class: its docs test `type is ...`
                raise NotImplementedError(f"Evaluation rule for '{self.name}' not implemented")
            return self.impl(*args, **params)
        return core.bind(self, *args, **params)


_eager = ContextVar("astjax_eager_transform", default=False)


@contextmanager
def eager_transform():
    """While an eager transformation (`grad(f)(x)`, `vmap(f)(x)` outside `jit`) stages
    and compiles its program. JAX evaluates those op by op, so an extension primitive
    with only an impl works there; astjax compiles them, and lowers the impl."""
    token = _eager.set(True)
    try:
        yield
    finally:
        _eager.reset(token)


def in_eager_transform() -> bool:
    """Whether an eager transformation is staging its program now (`eager_transform`):
    the values it was called with are concrete to JAX, not tracers."""
    return _eager.get()


# (depth of the builder a transformation stages its function in, one flag per input:
#  transformed, the values passed for the inputs)
_eager_frames: ContextVar[tuple] = ContextVar("astjax_eager_frames", default=())


@contextmanager
def eager_staging(leaves, transformed):
    """While an eager transformation stages its function on `leaves` in a builder of
    its own (the next one on the stack): which inputs it transforms (`transformed`,
    a flag per leaf: grad's differentiated arguments, vmap's mapped ones). JAX sees
    the others as the values passed (`eager_input`)."""
    if not _eager.get():
        yield
        return
    frame = (len(core._state.builders), tuple(transformed), tuple(leaves))
    token = _eager_frames.set(_eager_frames.get() + (frame,))
    try:
        yield
    finally:
        _eager_frames.reset(token)


def eager_arguments(args, kwargs, positions):
    """`eager_staging` for a function staged on `(args, kwargs)` (its leaves in
    `flatten_for_staging` order) transforming the positional arguments at `positions`
    (None: all of them, so nothing to note)."""
    if positions is None or not _eager.get():
        return nullcontext()
    flags = [i in positions for i, a in enumerate(args) for _ in tree_util.staging_leaves(a)]
    leaves = tree_util.staging_leaves((tuple(args), dict(kwargs)))
    return eager_staging(leaves, flags + [False] * (len(leaves) - len(flags)))


def eager_input(builder, var):
    """What the input `var` of `builder` is to JAX while an eager transformation stages
    (outside one: True): False for the eager call's own arguments (concrete values),
    the outer value passed for an input the transformation does not transform (JAX's
    tracer exactly when that value is one), True otherwise (a transformed argument,
    or an input of a function staged inside: a loop body's, an inner `jit`'s)."""
    builders = core._state.builders
    if not _eager.get() or not builders:
        return True
    if builder is builders[0]:
        return False
    for depth, transformed, leaves in _eager_frames.get():
        if depth < len(builders) and builders[depth] is builder \
                and len(builder.invars) == len(leaves) and var in builder.invars:
            k = builder.invars.index(var)
            return True if transformed[k] else leaves[k]
    return True


class _LoweringFromImpl:
    """An extension primitive's impl as its lowering, `available` only inside
    `eager_transform()`: under `jit`, a primitive without a registered lowering is
    JAX's NotImplementedError (codegen/stablehlo.py raises it)."""

    def __init__(self, prim):
        self.prim = prim

    @staticmethod
    def available():
        return _eager.get()

    def __call__(self, ctx, *args, **params):
        outs = lower_fun(self.prim.impl, self.prim.multiple_results)(ctx, *args, **params)
        return outs if self.prim.multiple_results else outs[0]


def _bind_source(gen, eqn):
    """`<primitive>.bind(*operands, **params)`: the primitive object travels in the
    printed function's globals."""
    fn = f"{gen.inject(eqn.primitive, eqn.primitive.name)}.bind"
    return call(fn, [gen.arg(a) for a in eqn.invars],
                **{k: gen.value(v) for k, v in eqn.params.items()})


def mapped_aval(size: int, axis, aval):
    """The aval of one slice of a batch: `aval` without dimension `axis` (JAX's
    argument order)."""
    if axis is None:
        return aval
    if aval.shape[axis] != size:
        raise ValueError(f"mapped_aval: dimension {axis} of {aval.str_short(True)} is not {size}")
    return aval.update(shape=aval.shape[:axis] + aval.shape[axis + 1:])


def unmapped_aval(size: int, axis, aval, explicit_mesh_axis=None):
    """The aval of a whole batch: `aval` with a dimension of `size` inserted at `axis`."""
    if axis is None:
        return aval
    return aval.update(shape=aval.shape[:axis] + (size,) + aval.shape[axis:])


def get_opaque_trace_state(convention=None):
    """An object that compares equal while the same staging context is current: the
    innermost builder (None outside every transformation)."""
    return _TraceState(core.current_builder())


class TraceTag:
    """An identity token of one transformation (JAX's `TraceTag`): equal only to
    itself."""
    __slots__ = ("__weakref__",)


def find_top_trace(xs):
    """JAX's current trace (`xs` is ignored, as in JAX 0.10.2): here the innermost
    builder staging now (None outside every transformation). Its `.main` names it, as
    a staged value's `x._trace.main` names the builder it belongs to."""
    return core.current_builder()


@contextmanager
def take_current_trace():
    """The current trace: a library's `Trace` made current, else astjax's staging
    context (as `get_opaque_trace_state` gives it); restore it with
    `set_current_trace`."""
    traces = core._state.user_traces
    yield traces[-1] if traces and traces[-1] is not None else get_opaque_trace_state()


@contextmanager
def set_current_trace(trace, check_leaks=False):
    """Make `trace` current for the block: a library's `Trace` (see `Trace`), or what
    `take_current_trace` gave -- astjax's own staging or evaluation, which must be the
    current one (a `Trace` made current inside it is set aside)."""
    if isinstance(trace, Trace):
        with core.current_user_trace(trace):
            yield
        return
    if not (isinstance(trace, _TraceState) and trace.builder is core.current_builder()):
        raise NotImplementedInAstjaxError(
            f"set_current_trace({type(trace).__name__}): only a Trace subclass or what "
            "take_current_trace gave in this staging context can be made current",
            hint="save the trace with take_current_trace where it is current")
    with core.current_user_trace(None):
        yield


class _TraceState:
    __slots__ = ("builder",)

    def __init__(self, builder):
        self.builder = builder

    def __eq__(self, other):
        return isinstance(other, _TraceState) and other.builder is self.builder

    def __hash__(self):
        return id(self.builder)


def jaxpr_as_fun(closed: ClosedJaxpr):
    """A function evaluating `closed` by binding its equations (so it can be staged
    and transformed again)."""
    def fun(*args):
        return core.inline_jaxpr(closed.jaxpr, closed.consts, args)
    return fun

