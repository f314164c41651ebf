"""`debug_print`: `jax.debug.print` / `jax.debug.log` as JAX 0.10.2 binds them -- one
primitive carrying the formatting (`fmt`, the arguments' tree `in_tree` with their
non-array leaves `static_args`, NumPy's print options at the call, whether `fmt` has
placeholders, the log record of `debug.log`) whose operands are the array leaves.

It runs as a `debug_callback` does (the same custom call, the same Python-callback
machinery): its impl and lowering build the host function from the params
(`host_call`). Under `grad` the callback sees the primal values; under `vmap` it is
one sequential host call over the batch (see `_batch`).
"""
from __future__ import annotations

import copy
import logging
import string
import sys

import numpy as np

from .. import core, tree_util
from ..pyast import call, load
from . import effects
from .base import lax_ops, register
from .callbacks import HostCall, debug_callback_p, unrolled

__all__ = ["debug_print_p", "bind_debug_print", "format_message"]

debug_print_p = core.new_primitive("debug_print", multiple_results=True)
debug_print_p.effectful = True


def _static(leaf) -> bool:
    try:
        core.get_aval(leaf)
    except Exception:   # noqa: BLE001 (JAX's test: the leaf has no abstract value)
        return True
    return isinstance(leaf, str)


def bind_debug_print(fmt, args, kwargs, *, ordered=False, partitioned=False,
                     logging_record=None):
    """Bind `debug_print` for `fmt.format(*args, **kwargs)`, as JAX's `debug_print`:
    the array leaves are operands, the others `static_args` (position, value). Outside
    staging the message is written now."""
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    static = tuple((i, x) for i, x in enumerate(leaves) if _static(x))
    dyn = [x for x in leaves if not _static(x)]
    first = next(iter(string.Formatter().parse(fmt)), (None, None))
    params = dict(fmt=fmt, ordered=bool(ordered), partitioned=bool(partitioned),
                  in_tree=in_tree, static_args=static,
                  np_printoptions=tuple(np.get_printoptions().items()),
                  has_placeholders=bool(fmt) and first[1] is not None,
                  logging_record=logging_record)
    if core.current_builder() is None:
        if ordered:   # (after the ordered prints of the programs dispatched before)
            effects.wait("debug")
        host_call(params)(*dyn)
    else:
        debug_print_p.bind(*dyn, **params)


def format_message(fmt, np_printoptions, has_placeholders, args, kwargs) -> str:
    """The printed text: `fmt.format(...)` under the call's NumPy print options, or
    (no placeholders) `fmt` and the arguments joined by spaces, as JAX's."""
    if has_placeholders:
        with np.printoptions(**dict(np_printoptions)):
            return fmt.format(*args, **kwargs)
    return " ".join((fmt, *(str(a) for a in args)))


def host_call(params) -> HostCall:
    """The host function of a `debug_print` equation: the operands (NumPy) merged with
    the static leaves, formatted, written to stdout or handled as the log record."""
    in_tree, static = params["in_tree"], dict(params["static_args"])
    record = params["logging_record"]

    def run(*dyn):
        # (formatted as JAX's: device Arrays, whose repr is `Array(...)`)
        it = iter(core.host_array(x) if isinstance(x, np.ndarray) and x.dtype.kind != "V"
                  else x for x in dyn)
        leaves = [static[i] if i in static else next(it)
                  for i in range(len(static) + len(dyn))]
        args, kwargs = tree_util.tree_unflatten(in_tree, leaves)
        msg = format_message(params["fmt"], params["np_printoptions"],
                             params["has_placeholders"], args, kwargs)
        if record is not None:
            rec = copy.copy(record)
            rec.msg = msg
            logging.getLogger(rec.name).handle(rec)
        else:
            sys.stdout.write(msg + "\n")
        return []
    return HostCall(run)


def _impl(*args, **params):
    return debug_callback_p.impl(*args, callback=host_call(params), ordered=params["ordered"])


def _lowering(ctx, *args, **params):
    return debug_callback_p.lowering(ctx, *args, callback=host_call(params),
                                     ordered=params["ordered"])


def _jvp(primals, tangents, **params):
    """The print sees the primal values; it has no outputs to differentiate."""
    debug_print_p.bind(*primals, **params)
    return [], []


def _batch(args, dims, **params):
    """One print per example, in order, from one host call over the batch: the
    sequential `debug_callback` of astjax's earlier `debug.print`. (JAX unrolls the
    batch into one `debug_print` per example. Unrolled, astjax's jitted vmap prints in
    JAX's order -- XLA's schedule of the same unordered calls, e.g. a vmapped `cond`'s
    branches interleaved per lane -- but its eager vmap, one program too, would then
    interleave where JAX's op-by-op eager vmap prints each branch's lanes in turn
    (tests/bad_inputs/ok_vmap_cond_debug_print_lanes.py). One call keeps JAX's eager
    order; the jaxpr differs: a strict xfail in tests/test_debug_print.py.) An ordered
    print is unrolled as JAX's: its tokens order the prints alike in both cases."""
    if params["ordered"]:
        return unrolled(debug_print_p, args, dims, params)
    return debug_callback_p.batch(list(args), list(dims), callback=host_call(params),
                                  ordered=params["ordered"])


def _source(gen, eqn):
    prim = gen.inject(debug_print_p, "debug_print_p")
    params = {k: gen.value(v) if v is None or isinstance(v, (bool, str))
              else load(gen.inject(v, k)) for k, v in eqn.params.items()}
    return call(f"{prim}.bind", [gen.arg(a) for a in eqn.invars], **params)


register(debug_print_p, impl=_impl, abstract_eval=lambda *avals, **params: [],
         lowering=_lowering, jvp=_jvp, batch=_batch, source=_source)
effects.ORDERED[debug_print_p] = effects.ORDERED[debug_callback_p]
