"""Host callbacks: programs that call back into Python while they run.

- `pure_callback`: a function of its operands with no side effect (may be removed
  as dead code, merged with an equal call, or called more than once);
- `io_callback`: a side effect returning values (`effectful`: always kept);
- `debug_callback`: a side effect returning nothing (`jax.debug.print`/`callback`).

Each lowers to XLA's Python-callback custom call: the Python function travels in the
lowered module's `host_callbacks` (codegen/stablehlo.py) and XLA calls it with NumPy
arrays. The `callback` param is a function of the flat NumPy operands returning the
flat list of NumPy results (the public wrappers in `callbacks_api.py` and
`astjax.debug` flatten and check pytrees around the user's function).
"""
from __future__ import annotations

import numpy as np

from .. import core
from .. import sharding_impls as shd
from ..config import config
from ..errors import ArgumentValueError, DerivativeValueError, NotImplementedInAstjaxError
from ..pyast import call, load
from . import effects
from .base import register, weak_like
from .cond import bind_cond
from .slicing import index_in_dim

__all__ = ["pure_callback_p", "io_callback_p", "debug_callback_p", "HostCall", "unrolled"]


class HostCall:
    """The Python side of one callback equation: runs the flat callback on NumPy
    operands and checks each result against the declared aval (JAX's behaviour:
    dtypes are cast, a wrong shape is an error)."""

    def __init__(self, fn, result_avals=()):
        self.fn = fn
        self.result_avals = tuple(result_avals)

    def __call__(self, *args):
        outs = self.fn(*[np.asarray(a) for a in args])
        outs = [] if outs is None else list(outs)
        if len(outs) != len(self.result_avals):
            raise RuntimeError(f"the callback returned {len(outs)} values, its declared "
                               f"result has {len(self.result_avals)}")
        checked = []
        for o, a in zip(outs, self.result_avals):
            o = np.asarray(o)
            if o.shape != a.shape:
                raise RuntimeError(f"the callback returned a value of shape {o.shape} where "
                                   f"{a.str_short(True)} was declared")
            checked.append(np.asarray(o, dtype=a.dtype, order="C"))
        return tuple(checked)

    def __eq__(self, other):
        return (isinstance(other, HostCall) and other.fn is self.fn
                and other.result_avals == self.result_avals)

    def __hash__(self):
        return hash((id(self.fn), self.result_avals))


def _abstract_eval(*avals, callback, **_):
    return list(callback.result_avals)


class StagingTimeCall(Exception):
    """Raised by a callback's `impl` when asked to run while a function is being
    staged: the builder folds equations on known constants by running their `impl`,
    and a host callback must run only when the program runs (as often as JAX runs
    it), never at staging time. Folding treats the exception as "not foldable"."""


def _impl(*args, callback, **_):
    if core.current_builder() is not None:
        raise StagingTimeCall("host callbacks run when the program runs, not while staging")
    return list(callback(*args))


def _lowering(side_effect, debug=False):
    def rule(ctx, *args, callback, ordered=False, **_):
        if side_effect and shd.current_auto_axes():   # (a partially manual shard_map)
            if not debug:
                raise NotImplementedInAstjaxError(   # (JAX's refusal)
                    "callbacks are only supported in spmd computations when all mesh axes "
                    "are partitioned manually (no partial automatic sharding).",
                    hint="make every mesh axis manual in the shard_map (`axis_names`), or "
                         "call back with jax.debug.callback")
            return _partial_auto(ctx, args, callback, ordered)
        device = "gpu" if ctx.platform in ("cuda", "rocm", "gpu") else "cpu"
        avals_in, avals_out = list(ctx.avals_in), list(ctx.avals_out)
        effect = ("debug" if debug else "io") if ordered and side_effect else None
        token = ctx.mb.tokens.get(effect)   # (None: the module threads no tokens)
        index = ctx.host_callback(callback if token is None else _passing_token(callback))
        if token is not None:   # (the effect's token in and out first, as JAX's)
            args = (token, *args)
            avals_in, avals_out = [core.abstract_token, *avals_in], [core.abstract_token,
                                                                     *avals_out]
        # JAX's form: `backend_config` empty, the typed-FFI attributes in
        # `mhlo.backend_config` (XLA's import reads that as API_VERSION_TYPED_FFI)
        attrs = {"call_target_name": f'"xla_ffi_python_{device}_callback"',
                 "backend_config": '""',
                 "mhlo.backend_config": f"{{index = {index} : ui64}}",
                 "has_side_effect": "true" if side_effect else "false",
                 "operand_layouts": _layouts(avals_in),
                 "result_layouts": _layouts(avals_out)}
        # (an ordered debug callback is annotated with nothing, as in JAX)
        if not (ordered and debug):
            attrs.update(_placement(ctx, avals_out))
        outs = ctx.op("stablehlo.custom_call", args, avals_out, attrs)
        if token is not None:
            effects.advance(ctx, (effect,), outs[:1])
            outs = outs[1:]
        return outs
    return rule


def _passing_token(callback):
    """The host function of a custom call taking and returning a token first: the
    token passes through (JAX's `_wrapped_callback`)."""
    def run(token, *args):
        return (token, *callback(*args))
    return run


def _partial_auto(ctx, args, callback, ordered):
    """A debug callback in a partially manual `shard_map` body, as JAX lowers it: a
    nested `shard_map` over the automatic axes makes it where their index is 0."""
    from . import ops, shard_map   # (later families)
    mesh, auto = shd.current_manual_mesh(), shd.current_auto_axes()
    names = tuple(a for a in mesh.axis_names if a in auto)
    avals = list(ctx.avals_in)

    def call(*xs):
        debug_callback_p.bind(*xs, callback=callback, ordered=ordered)
        return []

    def body(*xs):
        index = ops.axis_index(names)
        first = ops.convert_element_type(ops.eq(index, weak_like(0, index)), np.int32)
        branches = [core.stage(lambda *ys: [], avals), core.stage(call, avals)]
        bind_cond(first, [(b.jaxpr, b.consts) for b in branches], operands=list(xs))
        return []
    outer = frozenset(a for a in mesh.axis_names if a not in auto)
    with shard_map.axes_in_scope(mesh):
        staged = core.stage(body, avals)

    def nested(*xs):
        return shard_map.shard_map_p.bind(*xs, jaxpr=staged, mesh=mesh, auto=outer,
                                          check_vma=False, out_specs=(),
                                          in_specs=(shd.PartitionSpec(),) * len(xs))
    program = core.stage(nested, avals)
    consts = [ctx.constant(np.asarray(c), core.get_aval(c)) for c in program.consts]
    return ctx.lower_jaxpr(program.jaxpr, consts, list(args))


_MAXIMAL = ("sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]> {stablehlo.mesh = {axes = [], "
            "device_ids = dense<0> : tensor<1xi64>}}")


def _placement(ctx, avals_out) -> dict:
    """Where the callback runs, as JAX annotates it: in a `shard_map` (or `pmap`)
    body on every device (Shardy's empty mesh, GSPMD's `{manual}`); elsewhere once,
    on the program's first device (the maximal layout over device 0)."""
    manual = shd.current_manual_mesh() is not None
    if not config.read("jax_use_shardy_partitioner"):
        return {"mhlo.sharding": '"{manual}"' if manual else '"{maximal device=0}"'}
    assignment = shd.current_assignment()
    if manual:
        parts = [shd.sdy_sharding(None, a.ndim, assignment) for a in avals_out] or [
            shd.sdy_sharding(None, 0, assignment)]
    else:
        if assignment is None:   # (a program on one device)
            ctx.mb.decls.setdefault("maximal_mesh_0", _MAXIMAL)
            one = "<@maximal_mesh_0, []>"
        else:
            one = shd.sdy_maximal(assignment[0], assignment)
        parts = [one] * max(1, len(avals_out))
    return {"sdy.sharding": f"#sdy.sharding_per_value<[{', '.join(parts)}]>"}


def _layouts(avals):
    """Row-major layouts, as the callback sees its NumPy arrays."""
    def one(a):
        if not a.ndim:
            return "dense<> : tensor<0xindex>"
        return f"dense<[{', '.join(str(d) for d in reversed(range(a.ndim)))}]> : tensor<{a.ndim}xindex>"
    return "[" + ", ".join(one(a) for a in avals) + "]"


def _no_jvp(message, hint):
    def rule(primals, tangents, **params):   # (JAX's ValueError and message)
        raise DerivativeValueError(message, hint=hint)
    return rule


def _source(name):
    def rule(gen, eqn):
        fn = gen.inject(eqn.params["callback"], "callback")
        params = {k: gen.value(v) for k, v in eqn.params.items() if k not in ("callback",)}
        prim = gen.inject(eqn.primitive, name)
        return call(f"{prim}.bind", [gen.arg(a) for a in eqn.invars], callback=load(fn),
                    **params)
    return rule


# ---------------------------------------------------------------- batching
# Under vmap the callback itself is vectorized in Python: `sequential` calls the
# user's function once per example (in order), the other methods once with batched
# operands (`expand_dims`: unmapped operands get a size-1 batch dimension,
# `broadcast_all`: they are broadcast to the batch size).


def _move_to_front(x, d, size, method):
    a = np.asarray(x)
    if d is None:
        return np.broadcast_to(a[None], (size,) + a.shape) if method != "expand_dims" else a[None]
    return np.moveaxis(a, d, 0)


def _batched_call(call_, dims, size, method):
    def run(*args):
        args = [_move_to_front(a, d, size, method) for a, d in zip(args, dims)]
        if method in ("sequential", "sequential_unrolled"):
            outs = [call_.fn(*[a[i] for a in args]) for i in range(size)]
            return [np.stack([np.asarray(o[k]) for o in outs])
                    for k in range(len(call_.result_avals))]
        return call_.fn(*args)
    return run


def unrolled(p, args, dims, params):
    """An ordered debug callback (`p`: `debug_callback` / `debug_print`) under vmap, as
    JAX batches it: one equation per example, in order (their effect's token chains
    them); an unordered one is one sequential host call (`_batch`, `debug_print._batch`:
    the same order eagerly, where JAX's jitted calls interleave as XLA schedules them)."""
    size = next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
    for i in range(size):
        p.bind(*[a if d is None else index_in_dim(a, i, d, keepdims=False)
                 for a, d in zip(args, dims)], **params)
    return [], []


def _batch(p, default_method):
    def rule(args, dims, *, callback, vmap_method=default_method, **params):
        if p is io_callback_p and params.get("ordered"):  # JAX: the calls' order is unspecified
            raise ArgumentValueError("Cannot `vmap` ordered IO callback.")
        if p is debug_callback_p and params.get("ordered"):
            return unrolled(p, args, dims, dict(params, callback=callback))
        size = next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
        method = vmap_method
        if method not in ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                          "legacy_vectorized"):
            raise NotImplementedInAstjaxError(
                f"vmap is only supported for the {p.name} primitive when vmap_method is one of "
                "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
                f"'legacy_vectorized'. Got vmap_method={method!r}.")
        if method == "legacy_vectorized":
            method = "expand_dims"
        avals = tuple(a.update(shape=(size,) + a.shape) for a in callback.result_avals)
        batched = HostCall(_batched_call(callback, dims, size, method), avals)
        outs = p.bind(*args, callback=batched, vmap_method=vmap_method, **params)
        return outs, [0] * len(outs)
    return rule


# ---------------------------------------------------------------- pure_callback
pure_callback_p = core.new_primitive("pure_callback", multiple_results=True)
register(pure_callback_p, impl=_impl, abstract_eval=_abstract_eval,
         lowering=_lowering(side_effect=False),
         jvp=_no_jvp("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use "
                     "callbacks while taking gradients.", "wrap the function in jax.custom_jvp"),
         batch=_batch(pure_callback_p, None), source=_source("pure_callback_p"))

# ---------------------------------------------------------------- io_callback
io_callback_p = core.new_primitive("io_callback", multiple_results=True)
io_callback_p.effectful = True
register(io_callback_p, impl=_impl, abstract_eval=_abstract_eval,
         lowering=_lowering(side_effect=True),
         jvp=_no_jvp("IO callbacks do not support JVP.",
                     "use `jax.custom_jvp` around the callback"),
         batch=_batch(io_callback_p, "sequential"), source=_source("io_callback_p"))
effects.ORDERED[io_callback_p] = lambda params: "io" if params.get("ordered") else None


# ---------------------------------------------------------------- debug_callback
debug_callback_p = core.new_primitive("debug_callback", multiple_results=True)
debug_callback_p.effectful = True


def _debug_jvp(primals, tangents, **params):
    """The callback sees the primal values; there are no outputs to differentiate."""
    debug_callback_p.bind(*primals, **params)
    return [], []


register(debug_callback_p, impl=_impl, abstract_eval=_abstract_eval,
         lowering=_lowering(side_effect=True, debug=True), jvp=_debug_jvp,
         batch=_batch(debug_callback_p, "sequential"), source=_source("debug_callback_p"))
effects.ORDERED[debug_callback_p] = lambda params: "debug" if params.get("ordered") else None
