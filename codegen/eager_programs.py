"""jnp-level eager programs (issue 14): a `jnp` elementwise function applied to
concrete single-device Arrays (and Python floats) runs one executable per signature,
its promotion and primitive(s) compiled in, without the lax / `bind` / `eager_apply`
layers under it. The numpy layer keys and calls them (astjax/numpy/ufuncs.py). A
program is made at a signature's second slow call (one-off shapes cost no extra
work), from the ufunc's own lax function, and checked against the type of what the
op-by-op path returned.

Eager `lax.slice`s with unit strides run as `dynamic_slice`s whose starts are operands
(`runtime.eager_rewrites`), as JAX's slice impl does: `perm[i * 32:(i + 1) * 32]` in a
Python loop compiles one executable, not one per start."""
from __future__ import annotations

import numpy as np

from astjax import core

from astjax.primitives.slicing import dynamic_slice_p, slice_p

from . import runtime, stablehlo

eager_programs: dict = {}   # key -> EagerProgram
_program_calls: dict = {}   # key -> 1 after its first slow call, or _NOT_A_PROGRAM
_NOT_A_PROGRAM = -1
_float_bufs: dict = {}


class EagerProgram:
    """A compiled elementwise `jnp` function for one signature: `run(bufs)` -> Array;
    `in_avals` (interned) are its parameters' types."""
    __slots__ = ("exe", "handlers", "out_aval", "in_avals", "device")

    def __init__(self, exe: "runtime.Executable"):
        self.exe, self.handlers, self.out_aval = exe.exe, exe.handlers, exe.out_avals[0]
        self.in_avals = [runtime.intern_aval(a) for a in exe.in_avals]
        self.device = exe.device

    def run(self, bufs):
        try:
            outs = self.exe.execute_sharded(bufs).consume_with_handlers(self.handlers)
        except runtime.JaxRuntimeError:   # an (uncommitted) operand on another device
            moved = runtime.on_device(map(runtime.Array, bufs, self.in_avals), self.device)
            outs = self.exe.execute_sharded([a._buf for a in moved]).consume_with_handlers(
                self.handlers)
        return runtime.Array(outs[0], self.out_aval)


def eager_program(key, fn, operands, out_aval):
    """Make, at the second slow call of signature `key`, the EagerProgram of `fn`
    (Arrays / WeakConsts -> one array) staged on the avals of `operands`, and cache it
    in `eager_programs`; `out_aval` is what the op-by-op path returned, which the
    program must match. Not made when `fn` is not one self-contained computation
    (no equation, consts, a result that is an argument) or does not stage."""
    seen = _program_calls.get(key, 0)
    if seen != 1:   # the first call (counted), or a signature found unfit before
        if seen == 0:
            if len(_program_calls) > 4096:
                _program_calls.clear()
            _program_calls[key] = 1
        return
    _program_calls[key] = _NOT_A_PROGRAM   # (the program, if made, is found first)
    avals = [a.aval for a in operands]
    try:
        closed = core.stage(lambda *xs: [fn(*xs)], avals)
    except Exception:  # noqa: BLE001 -- the op-by-op path stays the reference
        return
    jaxpr = closed.jaxpr
    if (closed.consts or not jaxpr.eqns or any(v in jaxpr.invars for v in jaxpr.outvars)
            or jaxpr.outvars[0].aval != out_aval):
        return
    e = jaxpr.eqns[0]
    # one primitive on the arguments as they are: the text eager_apply compiles, so the
    # in-memory executable cache (keyed by module text) answers without a compile
    single = len(jaxpr.eqns) == 1 and list(e.invars) == list(jaxpr.invars)
    name = f"eager_{e.primitive.name}" if single else "eager_jnp"
    exe = runtime.Executable(stablehlo.lower_module(jaxpr, name), avals,
                             [v.aval for v in jaxpr.outvars])
    if len(eager_programs) > 4096:
        eager_programs.clear()
    eager_programs[key] = EagerProgram(exe)


def _slice_as_dynamic(args, params):
    """`slice` on a concrete array as `dynamic_slice`, its starts weak int32 operands
    (the same elements: the bounds are checked in range first; otherwise the slice runs
    as itself and raises its error)."""
    x, = args
    start, limit, strides = (params["start_indices"], params["limit_indices"],
                             params.get("strides"))
    if ((strides is not None and any(st != 1 for st in strides)) or
            not all(0 <= s <= l <= d for s, l, d in zip(start, limit, x.aval.shape))):
        return slice_p, args, params
    starts = [core.WeakConst(np.int32(s)) for s in start]
    return (dynamic_slice_p, [x, *starts],
            {"slice_sizes": tuple(l - s for s, l in zip(start, limit))})


runtime.eager_rewrites[slice_p] = _slice_as_dynamic


def float_buf(v: float, aval: core.ShapedArray):
    """The device buffer of Python float `v` as a weak scalar of `aval` (interned),
    shared by every eager program called with it. Not for 0.0 (its sign is lost in
    the key) or NaN (never equal to itself): callers take the slow path for those."""
    k = (v, id(aval))
    buf = _float_bufs.get(k)
    if buf is None:
        if len(_float_bufs) > 1024:
            _float_bufs.clear()
        # (the buffer the op-by-op path made for this value, if any: one transfer)
        buf = _float_bufs[k] = runtime.scalar_buf(core.WeakConst(np.asarray(v, aval.dtype)))
    return buf


def clear():
    """Drop every program and scalar buffer (`astjax.clear_caches`)."""
    for d in (eager_programs, _program_calls, _float_bufs):
        d.clear()
