"""`jax.experimental.checkify`: run-time checks in staged code, returned as a value.

- `check(pred, msg, *fmt_args, **fmt_kwargs)` binds the effectful primitive `check`
  (operands: the predicate and the formatting arrays). Outside every transformation a
  failing check raises `JaxRuntimeError` at once; staged outside `checkify`, it is
  JAX's "not functionalized" `ValueError`.
- `checkify(f, errors=user_checks)` stages `f` (no dead-code elimination: the
  checks of unused values count, as under JAX) and re-evaluates its
  jaxpr with `_ErrorInterpreter` (astjax/compat/experimental/_checkify_rules.py),
  which threads an error state -- a failed flag, the code of the first failing
  site, one payload per site -- through every equation: `check` equations and, for the
  enabled automatic categories, NaN outputs, divisions by zero and out-of-bounds
  indices; `cond` branches, `scan` / `while` bodies and the bodies of custom-derivative
  and checkpoint calls get the state as extra operands and results. It returns
  `(Error, out)`; `Error.get()` / `.throw()` read it.
- `check` has JVP (check the primals) and batching (one check over the batch; the
  payload is the last failing example's, as JAX picks) rules, so `checkify` composes
  with `jit`, `vmap` and `grad` in either order. After a `shard_map` / `pmap` body
  the error has a leading device axis: `get()` reports each failing device.
"""
from __future__ import annotations

import threading
from typing import TypeVar

import numpy as np

from astjax import core, dtypes, random, tree_util
from astjax import numpy as jnp
from astjax.staging import stage_callable
from astjax.extend.core import Primitive
from astjax.interpreters import ad, batching
from astjax.numpy.util import library_jit
from astjax.compat.experimental._checkify_rules import ErrorInterpreter, Site

__all__ = ["check", "checkify", "check_error", "debug_check", "Error", "JaxRuntimeError",
           "JaxException", "FailedCheckError", "NaNError", "OOBError", "DivisionByZeroError",
           "ErrorCategory", "user_checks", "nan_checks", "index_checks", "div_checks",
           "float_checks", "automatic_checks", "all_checks", "check_p", "init_error"]

Out = TypeVar("Out")


class JaxRuntimeError(ValueError):
    """A failed check: raised by `Error.throw()`, `check_error`, or an eager `check`."""


class JaxException(Exception):
    """Base of the error categories (`errors=` takes sets of these classes)."""

    def __init__(self, traceback_info=None):
        super().__init__()
        self.traceback_info = traceback_info


class FailedCheckError(JaxException):
    """A user `check` whose predicate was False."""


class NaNError(JaxException):
    """A primitive produced a NaN."""


class OOBError(JaxException):
    """An out-of-bounds index (gather, dynamic_slice, dynamic_update_slice)."""


class DivisionByZeroError(JaxException):
    """A division with a zero divisor."""


ErrorCategory = type
user_checks = frozenset({FailedCheckError})
nan_checks = frozenset({NaNError})
index_checks = frozenset({OOBError})
div_checks = frozenset({DivisionByZeroError})
float_checks = nan_checks | div_checks
automatic_checks = float_checks | index_checks
all_checks = automatic_checks | user_checks

_CATEGORY = {"user": FailedCheckError, "nan": NaNError, "oob": OOBError,
             "div": DivisionByZeroError}

# ---------------------------------------------------------------------- the error


class Error:
    """The result of the checks of one `checkify`-ed call: `get()` is None when no
    check failed, else the message of the first failure (one line per failing
    example when the error was batched by `vmap`). A pytree of arrays."""

    def __init__(self, pred, code, payloads, sites):
        self._pred, self._code, self._payload, self._sites = pred, code, payloads, sites

    def _messages(self):
        pred = np.asarray(self._pred)
        code = np.asarray(self._code)
        # formatted as Arrays, as JAX's are (`{'b': Array(nan, dtype=float32)}` in a dict)
        pays = [[jnp.asarray(p) for p in site_pay] for site_pay in self._payload]
        if pred.ndim == 0:
            if not pred:
                return []
            i = int(code)
            return [self._sites[i].message(pays[i])]
        out = []
        for idx in np.ndindex(pred.shape):
            if pred[idx]:
                i = int(code[idx])
                where = idx[0] if len(idx) == 1 else idx
                out.append(f"at mapped index {where}: "
                           + self._sites[i].message([p[idx] for p in pays[i]]))
        return out

    def get(self):
        """The error message, or None when every check passed."""
        msgs = self._messages()
        return "\n".join(msgs) if msgs else None

    def get_exception(self):
        """The failure as a `JaxRuntimeError` (None when every check passed)."""
        msg = self.get()
        return None if msg is None else JaxRuntimeError(msg)

    def throw(self):
        """Raise `JaxRuntimeError` with the message if a check failed. A batched error
        (`vmap`, a `shard_map`'s devices) raises one failure, as JAX reduces it: per
        kind of error (category and payload types) its last failing index; of those,
        the first site's."""
        pred = np.asarray(self._pred)
        if pred.ndim == 0:
            exc = self.get_exception()
            if exc is not None:
                raise exc
            return
        code = np.asarray(self._code)
        last = {}
        for idx in np.ndindex(pred.shape):
            if pred[idx]:
                i = int(code[idx])
                last[(self._sites[i].kind, tuple(
                    (np.shape(p)[pred.ndim:], np.asarray(p).dtype) for p in self._payload[i]))] = idx
        if last:
            idx = min(last.values(), key=lambda k: int(code[k]))
            i = int(code[idx])
            raise JaxRuntimeError(self._sites[i].message(
                [jnp.asarray(p)[idx] for p in self._payload[i]]))

    def __str__(self):
        return f"Error({self.get()})"

    __repr__ = __str__


tree_util.register_pytree_node(
    Error, lambda e: ((e._pred, e._code, e._payload), e._sites),
    lambda sites, ch: Error(ch[0], ch[1], ch[2], sites))


def init_error():
    """An error state with no failure and no sites."""
    return Error(jnp.asarray(False), jnp.asarray(-1, jnp.int32), (), ())

# ------------------------------------------------------------------ check primitive


class _State(threading.local):
    depth = 0  # > 0 while `checkify` stages a function: `check` may be staged


_state = _State()

_NOT_FUNCTIONALIZED = (
    "Cannot abstractly evaluate a checkify.check which was not functionalized. This "
    "probably means you tried to stage (jit/scan/pmap/...) a `check` without "
    "functionalizing it through `checkify.checkify`.")

check_p = Primitive("check")
check_p.multiple_results = True  # no results
check_p.effectful = True


def _check_impl(pred, *payload, site, debug):
    if not debug and not np.all(np.asarray(pred)):
        raise JaxRuntimeError(site.message([jnp.asarray(p) for p in payload]))
    return []


def _check_abstract_eval(*avals, site, debug):
    if not debug and _state.depth == 0:
        raise ValueError(_NOT_FUNCTIONALIZED)
    return []


def _check_lowering(ctx, *args, site, debug):
    if debug:
        return []
    raise ValueError(_NOT_FUNCTIONALIZED)


def _check_jvp(primals, tangents, *, site, debug):
    check_p.bind(*primals, site=site, debug=debug)
    return [], []


def _check_batch(args, dims, *, site, debug):
    """One check over the whole batch: every operand mapped at axis 0."""
    size = next(x.shape[d] for x, d in zip(args, dims) if d is not None)
    args = [batching.bdim_at_front(x, d, size) for x, d in zip(args, dims)]
    check_p.bind(*args, site=site, debug=debug)
    return [], []


check_p.def_impl(_check_impl)
check_p.def_abstract_eval(_check_abstract_eval)
check_p.lowering = _check_lowering
ad.primitive_jvps[check_p] = _check_jvp
batching.primitive_batchers[check_p] = _check_batch


def _fmt_leaves(fmt_args, fmt_kwargs):
    leaves, tree = tree_util.tree_flatten((fmt_args, fmt_kwargs))
    for x in leaves:
        if not isinstance(x, (core.Array, np.ndarray, np.generic)):
            raise TypeError("Formatting arguments to checkify.check need to be PyTrees of "
                            f"arrays, but got {x!r} of type {type(x)}.")
    # typed PRNG keys travel as their key data (an error state holds plain arrays)
    impls = tuple(random.key_impl(x) if dtypes.has_extended_dtype(x) else None for x in leaves)
    return ([random.key_data(x) if i is not None else jnp.asarray(x)
             for x, i in zip(leaves, impls)], tree, impls)


def _bind_check(pred, msg, fmt_args, fmt_kwargs, debug):
    if not isinstance(msg, str):
        raise TypeError(f"checkify.check takes a str message, got {type(msg).__name__}")
    leaves, tree, impls = _fmt_leaves(fmt_args, fmt_kwargs)
    pred = jnp.asarray(pred)
    if pred.dtype != np.bool_:
        raise TypeError(f"checkify.check takes a boolean predicate, got {pred.dtype}")
    site = Site("user", FailedCheckError, msg=msg, fmt_tree=tree,
                key_impls=impls if any(i is not None for i in impls) else ())
    check_p.bind(pred, *leaves, site=site, debug=debug)


def check(pred, msg, *fmt_args, **fmt_kwargs):
    """Check that `pred` holds; if not, `msg.format(*fmt_args, **fmt_kwargs)` is the
    error (raised at once outside transformations, recorded under `checkify`)."""
    _bind_check(pred, msg, fmt_args, fmt_kwargs, debug=False)


def debug_check(pred, msg, *fmt_args, **fmt_kwargs):
    """`check` that does nothing unless the function is `checkify`-ed."""
    if core.current_builder() is None:
        return
    _bind_check(pred, msg, fmt_args, fmt_kwargs, debug=True)


def check_error(error):
    """Raise `error` here: at once outside transformations; inside `checkify`, it is
    recorded again (so an Error can cross a `jit` boundary and be re-checked)."""
    if not isinstance(error, Error):
        raise TypeError(f"check_error takes a checkify.Error, got {type(error).__name__}")
    if core.current_builder() is None:
        error.throw()
        return
    for i, site in enumerate(error._sites):
        failed = jnp.logical_and(error._pred, jnp.equal(error._code, i))
        check_p.bind(jnp.logical_not(failed), *error._payload[i],
                     site=site.reinserted(), debug=False)

# ---------------------------------------------------------------------- checkify


def checkify(f, errors=user_checks):
    """`f` -> a function returning `(Error, f's outputs)`; the checks of the
    categories in `errors` (user_checks, nan_checks, index_checks, div_checks, or
    unions such as all_checks) are recorded instead of raised."""
    enabled = frozenset(_kind_of(c) for c in errors)

    def run(*args, **kwargs):
        _state.depth += 1
        try:
            # staged without dead-code elimination: a dead computation's checks count
            closed, out_tree, _ = stage_callable(f, args, kwargs)
        finally:
            _state.depth -= 1
        leaves = tree_util.flatten_for_staging((args, kwargs))[0]
        interp = ErrorInterpreter(closed.jaxpr, enabled)
        outs, (pred, code, payloads) = interp.run_top(closed.consts, leaves)
        out = tree_util.tree_unflatten(out_tree, outs)
        return Error(pred, code, payloads, interp.site_list), out

    jitted = library_jit(run)

    def checked(*args, **kwargs):
        return jitted(*args, **kwargs)
    checked.__wrapped__ = f
    checked.__name__ = getattr(f, "__name__", "checkified")
    return checked


def _kind_of(category):
    for kind, cls in _CATEGORY.items():
        if category is cls:
            return kind
    raise TypeError(f"checkify errors= takes error categories such as checkify.user_checks; "
                    f"got {category!r}")

