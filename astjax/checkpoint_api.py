"""`checkpoint` / `remat`: a function whose intermediates reverse mode recomputes
instead of storing, except those its `policy` lets it save.

Calling a checkpointed function stages it into one `checkpoint` equation
(`primitives/custom_derivatives.py`: the primitive and its rules); differentiated in
reverse, the policy splits it (`transforms/remat.py`) into what the forward pass
computes and saves and what the backward pass recomputes. `static_argnums` /
`static_argnames` arguments are fixed Python values the function specializes on.
"""
from __future__ import annotations

import functools
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import core, dtypes, hi_state, hi_values, tree_util
from .codegen import compile_cache
from .ad_api import _array_leaves, _fix_arguments, _stage, _staging, _Transformed
from .api import Jitted
from .errors import ArgumentTypeError, ArgumentValueError
from .extend.core import eager_transform as _eager_transform
from .primitives.custom_derivatives import bind_checkpoint
from .staging import array_signature, stage_once
from .traceback_util import at_boundary as _at_boundary, boundary as _boundary

__all__ = ["checkpoint", "remat"]



class _Checkpoint(_Transformed):
    _share = ("prevent_cse", "policy", "static_argnums", "static_argnames")

    def __init__(self, fun, prevent_cse=True, policy=None, static_argnums=(),
                 static_argnames=()):
        super().__init__(fun)
        if isinstance(prevent_cse, (list, tuple)):
            prevent_cse = tuple(prevent_cse)
        if not isinstance(prevent_cse, (bool, np.bool_, tuple)):
            raise ArgumentTypeError(
                f"prevent_cse must be a bool or tuple of bools, got {type(prevent_cse)}",
                hint="pass True (the default), False, or one bool per argument")
        self.prevent_cse, self.policy = prevent_cse, policy
        if isinstance(static_argnums, int):
            static_argnums = (static_argnums,)
        if not (isinstance(static_argnums, tuple)
                and all(isinstance(d, int) for d in static_argnums)):
            raise ArgumentTypeError(
                "the `static_argnums` argument to `jax.checkpoint` / `jax.remat` must be "
                f"an int or a tuple of ints, but got value {static_argnums}",
                hint="give the positions of the static arguments, e.g. static_argnums=(1,)")
        self.static_argnums = static_argnums
        self.static_argnames = ((static_argnames,) if isinstance(static_argnames, str)
                                else tuple(static_argnames))

    _hi_states = False   # (a `lifted` one: the last argument holds hijax Variables' states)

    def _static(self, args):
        """The static positions, checked against the number of arguments."""
        n = len(args)
        if not all(-n <= d < n for d in self.static_argnums):
            raise ArgumentValueError(
                "the `static_argnums` argument to `jax.checkpoint` / `jax.remat` takes "
                f"integers in [-len(args), len(args)); got {self.static_argnums} for "
                f"{n} arguments",
                hint="count the positions from 0 (negative: from the end)")
        return tuple(sorted({d % n for d in self.static_argnums}))

    @_boundary
    def __call__(self, *args, **kwargs):
        try:   # (an API boundary: a user's exception leaves it filtered, traceback_util)
            if _staging() or not (self.static_argnums or self.static_argnames):
                return super().__call__(*args, **kwargs)
            # eagerly: compiled with the static arguments (and those that are not arrays)
            # as jit's static arguments; unhashable ones are closed over, uncached
            nums = tuple(sorted(set(self._static(args)) | {
                i for i, a in enumerate(args) if not _array_leaves(a)}))
            names = tuple(sorted(k for k, v in kwargs.items()
                                 if k in self.static_argnames or not _array_leaves(v)))
            with _eager_transform():
                try:
                    hash((tuple(args[i] for i in nums), tuple(kwargs[k] for k in names)))
                except TypeError:
                    fun, dyn, dyn_kw = _fix_arguments(self, args, kwargs, nums, names)
                    return Jitted(fun).run_compiled(dyn, dyn_kw)
                cache = self._state()
                jitted = cache.get(("static", nums, names))
                if jitted is None:
                    jitted = cache["static", nums, names] = Jitted(
                        self, static_argnums=nums, static_argnames=names)
                return jitted.run_compiled(args, kwargs)
        except Exception as e:
            _at_boundary(e)
            raise

    def _staging_state(self):
        """The state a fresh wrapper of this function and options would find now (another
        one once a global it reads was rebound or a closure cell changed), so a call
        never inlines a stale staging (`compile_cache.shared_state`)."""
        if type(self.fun) is not types.FunctionType:
            return self._state()
        with hi_state.quietly():   # (reading hijax Variables among its closure's contents)
            return compile_cache.shared_state(
                self.fun, ("checkpoint staging",) + tuple(getattr(self, a) for a in self._share),
                dict)

    def stage_inline(self, *args, **kwargs):
        if not hi_state.active():
            return self._stage(args, kwargs)
        if hi_state.has_mutable((args, kwargs)):
            return self._closing_over_hi(args, kwargs)

        def lifted(objs):   # (hijax Variables it writes where it closes over them)
            cap = hi_state.Lowering(list(objs))
            cse = (self.prevent_cse if not isinstance(self.prevent_cse, tuple)
                   else (*self.prevent_cse, False))
            inner = _Checkpoint(hi_values.closed_over(self.fun, objs), cse, self.policy,
                                self._static(args), self.static_argnames)
            inner._hi_states = True
            out, states = inner._stage((*args, cap.tree), kwargs)   # (not watched again)
            cap.write_back(states)
            return out
        return hi_state.carrying(lambda: self._stage(args, kwargs), lifted)

    def _closing_over_hi(self, args, kwargs):
        """A call passing hijax Variables: the arguments holding them (and the static
        ones) closed over by the function checkpointed instead, so that they keep their
        identity and their states are passed in and out as those of Variables it closes
        over (`stage_inline`'s `lifted`). (JAX 0.10.2 fails here: an AttributeError from
        the type's own rules.)"""
        nums = sorted(set(self._static(args)) | {
            i for i, a in enumerate(args) if hi_state.has_mutable(a)})
        names = sorted({k for k in self.static_argnames if k in kwargs} | {
            k for k, v in kwargs.items() if hi_state.has_mutable(v)})
        fun, dyn, dyn_kw = _fix_arguments(self.fun, args, kwargs, nums, names)
        cse = self.prevent_cse if not isinstance(self.prevent_cse, tuple) else tuple(
            c for i, c in enumerate(self.prevent_cse) if i not in nums)
        return _Checkpoint(fun, cse, self.policy).stage_inline(*dyn, **dyn_kw)

    def _stage(self, args, kwargs):
        fun, statics = self.fun, ()
        if self.static_argnums or self.static_argnames:
            nums = self._static(args)
            statics = (tuple(args[i] for i in nums),
                       tuple((k, kwargs[k]) for k in self.static_argnames if k in kwargs))
            fun, args, kwargs = _fix_arguments(fun, args, kwargs, nums, self.static_argnames)
        # staged once per program for the same function, options, static arguments and
        # input types, as JAX caches it (a fresh `checkpoint(f)` wrapper too)
        # (the states of hijax Variables passed last, by `lifted`: they carry no tangent)
        nums = tuple(range(len(args) - 1)) if self._hi_states else None
        sig = array_signature(args, kwargs)
        if sig is None:   # (`_stage` reports the leaf that is not an array)
            closed, _, out_tree, leaves = _stage(fun, args, kwargs, None, nums=nums)
        else:
            leaves, in_tree, avals = sig
            state, touched = self._staging_state(), []

            def make():   # (one reading hijax Variables' states is for this program only)
                with hi_state.noting() as note:
                    made = _stage(fun, args, kwargs, None, nums=nums)[::2]
                touched.append(note.touched)
                return made
            staged = stage_once(state, (statics, in_tree, avals, dtypes.config.x64_enabled),
                                make, shared=state)
            if any(touched):
                for k in [k for k, v in state.items() if v is staged]:
                    del state[k]
            closed, out_tree = staged
        outs = bind_checkpoint(closed, leaves, prevent_cse=self.prevent_cse,
                               differentiated=False, policy=self.policy)
        return tree_util.tree_unflatten(out_tree, outs)


def checkpoint(fun: Callable[..., Any] | None = None, *, prevent_cse: bool = True,
               policy: Callable[..., bool] | None = None,
               static_argnums: int | Sequence[int] = (),
               static_argnames: str | Sequence[str] = ()) -> Any:
    """Recompute `fun`'s intermediates in the backward pass instead of storing them.

    `policy(prim, *avals, **params)` (one of `checkpoint_policies`, or your own) is
    asked about each equation of `fun` when it is differentiated in reverse: the
    outputs of those it answers True / `Saveable` (or `Offloadable(...)`) for are saved,
    the rest recomputed from `fun`'s inputs and the saved values. Without a policy
    nothing is saved. `static_argnums` / `static_argnames` name arguments that are
    Python values `fun` specializes on.

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> f = astjax.checkpoint(lambda x: jnp.sin(jnp.sin(x)))
        >>> astjax.grad(f)(0.0)
        Array(1., dtype=float32, weak_type=True)
    """
    if fun is None:
        return functools.partial(checkpoint, prevent_cse=prevent_cse, policy=policy,
                                 static_argnums=static_argnums,
                                 static_argnames=static_argnames)
    return _Checkpoint(fun, prevent_cse, policy, static_argnums, static_argnames)


remat = checkpoint
