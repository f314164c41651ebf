"""JAX's key-reuse checker (`jax_debug_key_reuse`, `astjax.debug_key_reuse`): with the
flag on, a typed PRNG key that is *consumed* twice raises `KeyReuseError` at the
second use's line. JAX's rules: a sampler (`normal`, `uniform`, `bits`, ...) and
`split` consume their key; `fold_in`, `key_data` and `wrap_key_data` do not; `clone`
gives a new, unconsumed key; raw `uint32` keys are not checked.

Eagerly, a key array remembers that it was consumed (`_consumed`). A staged program
is checked as JAX checks a jaxpr (`jax.experimental.key_reuse`): each equation has a
*signature* -- which key operands it consumes (sinks, with a mask over the keys of an
array for `slice`), which key results are fresh (sources) and which results are the
operand itself (forwards) -- and one pass over the equations in order finds a key
consumed twice. Nested programs have the signature of their body: a `cond` consumes
what any branch consumes; a `scan` / `while` body may not consume a key it closes over
(every trip would consume it again), and may consume a key carry only if it puts a
fresh key back into that carry; a `while` condition and body may not consume the same
carry. In astjax a sampler's consumption is the `random_unwrap` that reads its key
(`consume` marks it with a `consumes` param, which every transformation keeps); the
other `random_unwrap`s (`key_data`) consume nothing. A marked read is kept by DCE and
CSE even when its result is unused (JAX's checker sees the dead code of its jaxprs: a
`grad` that drops a custom_jvp function's primal computation still consumes its key).
A key an eager `cond` / `scan` / `while_loop` returns unchanged is the operand's key
array itself (`primitives/cond.forward_operands`), as JAX's API functions forward it.

The check runs on every program staged from user code while the flag is on (the hook
in `staging.stage_flat`; an outermost program also consumes the eager keys it passes to
a staged call -- a `custom_jvp` / `checkpoint` function, an inner `jit` -- as JAX's
eager evaluation of that call does: `_consume_consts`), and a `jit` call on eager keys
checks and marks them by its program's signature (`check_call`, through `api.Jitted`'s
call hook), so `jit(f)(k)` then `normal(k)` is a reuse, as in JAX. A jitted function
that closes over an eager key and consumes it is checked on every call, not only when
it is staged: its second call consumes the key again (`_check_closed_over`). A loop
bound outside any staging (an eager `lax.scan`, `fori_loop`, `while_loop`) is checked
by its signature when it runs (`check_eager`, through `core.eager_key_check`), as JAX
checks each eager primitive: a body consuming a key it closes over is an error even
for one trip, and a key operand of an eager `cond` / loop that it consumes is consumed
(checked and marked)."""
from __future__ import annotations

import gc
import weakref

import numpy as np

from .. import config_api, core, staging, tree_util
from ..api import make_jaxpr
from ..config import config
State = config_api.State
from ..errors import KeyReuseError
from ..ir import KeyDataAval, Literal, Var
from ..primitives.prng_keys import random_unwrap_p, random_wrap, type_as_keys

__all__ = ["debug_key_reuse", "consume", "index", "signature", "check_call", "check_eager"]

debug_key_reuse = State("jax_debug_key_reuse")
debug_key_reuse.__doc__ = """`with astjax.debug_key_reuse(True):` a typed PRNG key
consumed twice (two samplers, or a sampler after `split`) raises `KeyReuseError`."""

# one list per `jit` call staging now: the eager keys its program closes over and consumes
_STAGING: list = []
# eager keys a program staged since the last eager `cond` / loop closes over and
# consumes: checked and marked then, so that call does not count them again
_CLOSED: list = []
# eager keys `consume` checked and marked while the outermost program stages now
_DIRECT: list = []
# jitted function -> {id(compiled entry): the eager keys its program consumes}
_PROGRAM_KEYS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def consume(key, what: str):
    """The typed key array to draw from when `what` (a sampler's name, or
    'random_split') consumes `key`: `key` itself while the checker is off; with it on,
    an eager key is checked and marked now, and a staged one (or an eager one a staged
    program closes over) is read through a marked `random_unwrap`, so the program
    records the consumption, and re-wrapped as a fresh key for the draw."""
    if not config.read("jax_debug_key_reuse"):
        return key
    base = key._base
    if isinstance(base, core.Tracer):
        return _marked(key, base, what)
    if np.any(key._consumed):
        raise KeyReuseError(f"Previously-consumed key passed to {what}: a PRNG key was "
                            "used twice")
    key._consumed = True
    builder = core.current_builder()
    if builder is None:
        return key
    _DIRECT.append(key)
    for log in _STAGING:
        log.append(key)
    _CLOSED.append(key)
    # an eager key a staged program closes over: a constant of the program, typed as
    # keys, so that a loop body consuming it is seen consuming it on every trip
    var = builder.atom(base)
    if not isinstance(var, Var):
        return key
    return _marked(key, type_as_keys(core.Tracer(builder, var, None), key._impl), what)


def _marked(key, staged, what):
    # the mark is a param, so that it survives every transformation's re-binding
    data = core.bind(random_unwrap_p, staged, consumes=what)
    return key._with(random_wrap(data, key._impl))


def index(key, idx):
    """Eager `key[idx]` with a basic index (ints, slices): JAX's `slice` consumes the
    keys it selects, and gives fresh ones (flag on only); `idx` is a tuple."""
    if (not config.read("jax_debug_key_reuse") or isinstance(key._base, core.Tracer)
            or not all(isinstance(i, (int, slice)) or i is Ellipsis for i in idx)):
        return
    mask = np.zeros(key.shape, bool)
    mask[idx] = True
    if np.any(np.logical_and(key._consumed, mask)):
        raise KeyReuseError("Previously-consumed key passed to slice at index 0: a PRNG "
                            "key was used twice")
    key._consumed = np.logical_or(key._consumed, mask)


# ---------------------------------------------------------------- signatures


class Sig:
    """An equation's or a program's key-reuse signature: `sinks` {operand index: (mask,
    where consumed)}, `sources` {result index: mask of keys consumed}, `forwards`
    {result index: operand index}; `again`: the sinks repeat a consumption (a
    `checkpoint`'s recomputation), so a key they consume may be consumed already."""
    __slots__ = ("sinks", "sources", "forwards", "again")

    def __init__(self, sinks=None, sources=None, forwards=None, again=False):
        self.sinks = sinks or {}
        self.sources = sources or {}
        self.forwards = forwards or {}
        self.again = again


def _is_key(v) -> bool:
    return not isinstance(v, Literal) and type(v.aval) is KeyDataAval


def _loc(eqn):
    return eqn.source_info


def _located(loc):
    """`loc`, or None (the error then points at the user's call) when it names no file
    (a body staged by a library wrapper, e.g. `fori_loop`'s)."""
    return loc if loc is not None and getattr(loc, "file", None) else None


# primitives that pass a key operand through (JAX's Forward(0, 0))
_FORWARD = frozenset({"broadcast_in_dim", "copy", "convert_element_type", "reshape",
                      "squeeze", "dynamic_slice", "gather",
                      "sharding_constraint", "device_put", "optimization_barrier"})
_NOTHING = frozenset({"random_unwrap", "eq", "ne", "debug_callback", "debug_print"})
# the key primitives: their operand's consumption is the marked `random_unwrap` that
# `consume` puts before them (the public split / fold_in / samplers), so they add none;
# split's and fold_in's keys are fresh (JAX's Source)
_DRAWS = frozenset({"random_split", "random_fold_in", "random_bits"})


def _slice_sig(eqn):
    aval = eqn.invars[0].aval
    k = aval.key_ndim
    nd = len(aval.shape) - k
    p = eqn.params
    strides = p.get("strides") or (1,) * len(p["start_indices"])
    mask = np.zeros(aval.shape[:nd], bool)
    mask[tuple(slice(a, b, s) for a, b, s in zip(p["start_indices"][:nd],
                                                p["limit_indices"][:nd], strides[:nd]))] = True
    return Sig({0: (mask, _loc(eqn), "slice")}, {0: False})


def _inner(j):
    return j.jaxpr if isinstance(j, core.ClosedJaxpr) else j


def _sub_sig(j, eqn):
    """The signature of the nested program `j` (a Jaxpr or ClosedJaxpr)."""
    return signature(_inner(j))


def _cond_sig(eqn):
    sigs = [_sub_sig(b, eqn) for b in eqn.params["branches"]]
    sinks, sources = {}, {}
    for s in sigs:
        for i, (m, loc, what) in s.sinks.items():
            prev = sinks.get(i + 1)
            sinks[i + 1] = (m if prev is None else np.logical_or(prev[0], m),
                            prev[1] if prev else loc, what)
        for i, m in s.sources.items():
            sources.setdefault(i, []).append(m)
    sources = {i: np.logical_or.reduce([np.asarray(m) for m in ms])
               for i, ms in sources.items() if len(ms) == len(sigs)}
    fwd = {o: i + 1 for o, i in sigs[0].forwards.items()
           if all(s.forwards.get(o) == i for s in sigs)}
    return Sig(sinks, sources, fwd)


def _scan_sig(eqn):
    p = eqn.params
    nc, ncarry = p["num_consts"], p["num_carry"]
    sig = _sub_sig(p["jaxpr"], eqn)
    n_in = len(_inner(p["jaxpr"]).invars)
    for i, (m, loc, what) in sig.sinks.items():
        if (i < nc or i >= n_in) and np.any(m):     # a const, or a closed-over constvar
            raise KeyReuseError("scan body function leads to key reuse when repeatedly "
                                "executed, because key constants are repeatedly consumed "
                                "(a loop body consumes a key it closes over)",
                                loc=_located(loc))
        if nc <= i < nc + ncarry and np.any(m) and (i - nc) not in _fresh(sig, p["jaxpr"]):
            raise KeyReuseError("scan body function leads to key reuse when repeatedly "
                                "executed, because consumed inputs don't match sourced "
                                "outputs (a loop body consumes a key carry and carries "
                                "it on)", loc=_located(loc))
    return sig


def _fresh(sig, body):
    """The outputs of a loop body `body` (signature `sig`) that are keys not consumed
    yet; an output computed from raw key data (a transformation's re-staged body
    loses the key type of its variable) is a new key, fresh as JAX's are."""
    return {i for i, m in sig.sources.items() if not np.all(m)} | {
        i for i, v in enumerate(_inner(body).outvars) if not _is_key(v)}


def _while_sig(eqn):
    p = eqn.params
    ncc, nbc = p["cond_nconsts"], p["body_nconsts"]
    cond, body = _sub_sig(p["cond_jaxpr"], eqn), _sub_sig(p["body_jaxpr"], eqn)
    fresh = _fresh(body, p["body_jaxpr"])
    nci, nbi = len(_inner(p["cond_jaxpr"]).invars), len(_inner(p["body_jaxpr"]).invars)
    msg = "while_loop {} function leads to key reuse when repeatedly executed"
    for i, (m, loc, _) in cond.sinks.items():
        if np.any(m) and (i < ncc or i >= nci or (i - ncc) not in fresh):
            raise KeyReuseError(msg.format("cond"), loc=_located(loc))
        if np.any(m) and (i - ncc + nbc) in body.sinks:
            raise KeyReuseError("while_loop cond and body functions both use the same key",
                                loc=_located(loc))
    for i, (m, loc, _) in body.sinks.items():
        if np.any(m) and (i < nbc or i >= nbi or (i - nbc) not in fresh):
            raise KeyReuseError(msg.format("body"), loc=_located(loc))
    return Sig({ncc + i: s for i, s in body.sinks.items() if i < nbi}, dict(body.sources),
               {o: ncc + i for o, i in body.forwards.items()})


def _call_sig(eqn):
    """A call of one nested program taking the operands as they are (`checkpoint`,
    custom derivatives); `checkpoint`'s recomputation consumes again what the forward
    pass consumed (no reuse), and is the only consumption when that pass was dropped
    (`grad` of a checkpointed function)."""
    for j in core.sub_jaxprs(eqn.params):
        inner = j.jaxpr if isinstance(j, core.ClosedJaxpr) else j
        if len(inner.invars) == len(eqn.invars) and len(inner.outvars) == len(eqn.outvars):
            sig, n = signature(inner), len(eqn.invars)
            if any(i >= n for i in sig.sinks) or any(i >= n for i in sig.forwards.values()):
                # (the inner program's own consts, after its invars, are no operands)
                sig = Sig({i: s for i, s in sig.sinks.items() if i < n}, sig.sources,
                          {o: i for o, i in sig.forwards.items() if i < n}, sig.again)
            if eqn.params.get("differentiated"):
                return Sig(sig.sinks, sig.sources, sig.forwards, again=True)
            return sig
    return None


def _eqn_sig(eqn):
    name = eqn.primitive.name
    keys_in = [i for i, v in enumerate(eqn.invars) if _is_key(v)]
    if name == "random_unwrap":
        what = eqn.params.get("consumes")
        return Sig({0: (True, _loc(eqn), what)}) if what else Sig()
    if name == "cond":
        return _cond_sig(eqn)
    if name == "scan":
        return _scan_sig(eqn)
    if name == "while":
        return _while_sig(eqn)
    if core.sub_jaxprs(eqn.params):
        sig = _call_sig(eqn)
        if sig is not None:
            return sig
    if not keys_in:    # keys made from raw data (split, fold_in, wrap_key_data): fresh
        return Sig(sources={i: False for i, v in enumerate(eqn.outvars) if _is_key(v)})
    if name in _NOTHING:
        return Sig()
    if name in _DRAWS:
        return Sig(sources={0: False} if _is_key(eqn.outvars[0]) else {})
    if name in _FORWARD:
        return Sig(forwards={0: 0})
    if name == "slice":
        return _slice_sig(eqn)
    if name == "concatenate" and len(eqn.invars) == 1:
        return Sig(forwards={0: 0})
    if name in ("dynamic_update_slice", "scatter"):
        k = 1 if name == "dynamic_update_slice" else 2
        return Sig({k: (True, _loc(eqn), name)} if _is_key(eqn.invars[k]) else {},
                   forwards={0: 0})
    # any other use consumes its keys; concatenate's result is fresh (JAX's rules)
    return Sig({i: (True, _loc(eqn), name) for i in keys_in},
               {0: False} if name == "concatenate" else {})


_SIGS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def signature(jaxpr) -> Sig:
    """`jaxpr`'s signature over its inputs (constvars after invars) and outputs; a
    `KeyReuseError` located at the second use if it consumes a key twice."""
    sig = _SIGS.get(jaxpr)
    if sig is None:
        sig = _SIGS[jaxpr] = _signature(jaxpr)
    return sig


def _signature(jaxpr) -> Sig:
    consumed: dict = {}     # var -> mask of its keys consumed so far
    first: dict = {}        # var -> where it was first consumed
    fwd: dict = {}          # forwarded result -> operand

    def root(v):
        while not isinstance(v, Literal) and v in fwd:
            v = fwd[v]
        return v

    for eqn in jaxpr.eqns:
        sig = _eqn_sig(eqn)
        for o, i in sig.forwards.items():
            fwd[eqn.outvars[o]] = eqn.invars[i]
        for i, (mask, loc, what) in sig.sinks.items():
            v = eqn.invars[i]
            if not _is_key(v):
                continue
            v = root(v)
            if isinstance(v, Literal):
                continue
            prev = consumed.get(v, False)
            if not sig.again and np.any(np.logical_and(prev, mask)):
                raise KeyReuseError(f"In {what or eqn.primitive.name}, the key argument is "
                                    f"already consumed: a PRNG key was used twice",
                                    loc=loc or _loc(eqn))
            consumed[v] = np.logical_or(prev, mask)
            first.setdefault(v, loc)
        for o, v in enumerate(eqn.outvars):
            if v not in fwd:
                consumed[v] = sig.sources.get(o, True)
    ins = list(jaxpr.invars) + list(jaxpr.constvars)
    pos = {v: i for i, v in enumerate(ins)}
    out = Sig()
    for v in ins:
        if _is_key(v) and np.any(consumed.get(v, False)):
            out.sinks[pos[v]] = (consumed[v], first.get(v), None)
    for o, v in enumerate(jaxpr.outvars):
        if not _is_key(v):
            continue
        r = root(v)
        if r in pos:
            out.forwards[o] = pos[r]
        elif not isinstance(r, Literal):
            out.sources[o] = consumed.get(r, False)
    return out


# ---------------------------------------------------------------------- hooks


def _check_staged(fun, closed, state):
    """`staging.stage_flat`'s key-reuse hook: check each program staged; an outermost
    one staged from user code (an eager transformation's, a `jit`'s) consumes the eager
    keys it closes over (`_consume_consts`)."""
    if closed is not None and config.read("jax_debug_key_reuse"):
        signature(closed.jaxpr)
        if core.current_builder() is None and not isinstance(fun, core.RawFunction):
            _consume_consts(closed)   # (not a transformation's program: user code's)
    if core.current_builder() is None:
        _DIRECT.clear()


def _consume_consts(closed):
    """The eager keys an outermost program closes over and consumes -- also through a
    staged call, an operand of a `custom_jvp` / `custom_vjp` / `checkpoint` function,
    whose body `consume` saw as a staged argument (the operand: the key's raw data) --
    checked and marked, as JAX's eager evaluation of the call consumes them (those
    `consume` marked itself, `_DIRECT`, are not counted again)."""
    pos = {v: i for i, v in enumerate(closed.jaxpr.constvars)}
    fwd: dict = {}   # (a broadcast of the raw data under `vmap`)
    for eqn in closed.jaxpr.eqns:
        if eqn.primitive.name == "broadcast_in_dim" and isinstance(eqn.invars[0], Var):
            fwd[eqn.outvars[0]] = fwd.get(eqn.invars[0], eqn.invars[0])
        for i, (mask, loc, what) in _eqn_sig(eqn).sinks.items():
            v = eqn.invars[i]
            v = fwd.get(v, v) if isinstance(v, Var) else v
            key = _owner(closed.consts[pos[v]]) if isinstance(v, Var) and v in pos else None
            if key is None or any(key is k for k in _DIRECT):
                continue
            if np.shape(mask) != key.shape:
                mask = np.any(mask)
            if np.any(np.logical_and(key._consumed, mask)):
                raise KeyReuseError(f"Previously-consumed key passed to "
                                    f"{what or eqn.primitive.name}: a PRNG key was used "
                                    f"twice", loc=_located(loc))
            key._consumed = np.logical_or(key._consumed, mask)
            _DIRECT.append(key)
            for log in _STAGING:
                log.append(key)
            _CLOSED.append(key)


def check_call(jitted, args, kwargs, call):
    """`jit(f)(*args)` with eager key arrays among the arguments: a key the program
    consumes must not be consumed already (JAX: "Previously-consumed key passed to
    jit-compiled function"); after the call it is consumed, and a key result is fresh
    or, when the program returns an argument, consumed as that argument is."""
    keys = [x for x in tree_util.tree_leaves((args, kwargs)) if _is_key_array(x)]
    _check_closed_over(jitted, args, kwargs)   # (keys it closes over, counted after these)
    if not keys:
        return call()
    jaxpr = make_jaxpr(jitted)(*args, **kwargs).jaxpr
    sig = signature(jaxpr)
    key_in = [i for i, v in enumerate(jaxpr.invars) if _is_key(v)]
    by_pos = dict(zip(key_in, keys))
    for i, (mask, _, _) in sig.sinks.items():
        k = by_pos.get(i)
        if k is not None and np.any(np.logical_and(k._consumed, mask)):
            raise KeyReuseError(f"Previously-consumed key passed to jit-compiled function "
                                f"at index {key_in.index(i)}")
    out = call()
    for i, (mask, _, _) in sig.sinks.items():
        k = by_pos.get(i)
        if k is not None:
            k._consumed = np.logical_or(k._consumed, mask)
    outs = [x for x in tree_util.tree_leaves(out) if _is_key_array(x)]
    key_out = [o for o, v in enumerate(jaxpr.outvars) if _is_key(v)]
    for o, k in zip(key_out, outs):
        if o in sig.forwards and sig.forwards[o] in by_pos:
            k._consumed = by_pos[sig.forwards[o]]._consumed
        else:
            k._consumed = sig.sources.get(o, False) if o in sig.sources else True
    return out


def _check_closed_over(jitted, args, kwargs):
    """A call of `jitted` without key arguments: the eager keys its program closes over
    and consumes are consumed by every call (JAX: "Previously-consumed key passed to
    jit-compiled function", the program's consts counted after its arguments). The
    call that stages the program checks and marks them (`consume`), and the keys are
    remembered with the compiled entry; a later call of that entry consumes them again."""
    log: list = []
    _STAGING.append(log)
    try:
        entry, leaves = jitted._entry(args, kwargs)
    finally:
        _STAGING.pop()
        _CLOSED.clear()
        _DIRECT.clear()
    per = _PROGRAM_KEYS.setdefault(jitted, {})
    if log:
        per[id(entry)] = log
        return
    for key in per.get(id(entry), ()):
        if np.any(key._consumed):
            consts = getattr(getattr(entry, "closed", None), "consts", ())
            at = next((len(leaves) + i for i, c in enumerate(consts) if c is key._base), None)
            raise KeyReuseError("Previously-consumed key passed to jit-compiled function"
                                + (f" at index {at}" if at is not None else "") +
                                ": the function closes over a key it consumes, and each "
                                "call consumes it again",
                                hint="pass the key as an argument, and a fresh key "
                                     "(random.split) to each call")


def check_eager(prim, args, params):
    """A loop or `cond` bound outside any staging (`core.eager_key_check`): its
    signature, so a body or condition consuming a key it closes over raises, located at
    the consuming line; and a key operand it consumes (JAX: "Previously-consumed key
    passed to cond") is checked and marked consumed."""
    if not config.read("jax_debug_key_reuse"):
        return
    check = {"scan": _scan_sig, "while": _while_sig, "cond": _cond_sig}.get(prim.name)
    if check is None:
        return
    sig = check(core.Eqn(prim, [], [], params))
    closed = _CLOSED[:]
    _CLOSED.clear()
    _DIRECT.clear()
    owners = {i: _owner(args[i]) for i in sig.sinks if i < len(args)}
    owners = {i: k for i, k in owners.items() if not any(k is c for c in closed)}
    for i, (mask, _, _) in sig.sinks.items():
        key = owners.get(i)
        if key is not None and np.any(np.logical_and(key._consumed, mask)):
            raise KeyReuseError(f"Previously-consumed key passed to {prim.name} at index {i}")
    for i, (mask, _, _) in sig.sinks.items():
        if owners.get(i) is not None:
            owners[i]._consumed = np.logical_or(owners[i]._consumed, mask)


def _owner(data):
    """The eager key array whose data `data` is (an eager primitive's operand is the
    data: the key array was flattened by the front end): found among `data`'s
    referrers, only while the checker is on. None when none or several (a `clone`
    shares its key's data) hold it: then nothing is checked or marked."""
    if not hasattr(data, "shape") or isinstance(data, core.Tracer):
        return None
    owners = [o for o in gc.get_referrers(data) if _is_key_array(o) and o._base is data]
    return owners[0] if len(owners) == 1 else None


def _is_key_array(x) -> bool:
    return hasattr(x, "_consumed") and hasattr(x, "_base")


staging.key_reuse_hook[0] = _check_staged
config_api.key_reuse_call[0] = check_call
core.eager_key_check = check_eager
