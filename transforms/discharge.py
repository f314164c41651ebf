"""State discharge: a jaxpr that uses mutable array references (`new_ref`, `get`,
`swap`, `addupdate`, `freeze`, ...; `astjax/primitives/state.py`) becomes one that
threads the values the references hold, so that every other pass -- differentiation,
batching, DCE, lowering -- sees plain values (JAX's `discharge_state`; it discharges
before AD the same way for references closed over by a loop body).

The pass re-stages the jaxpr with an interpreter whose environment maps each reference
variable to a `Cell`, the value it holds now: a state equation reads or replaces that
value through its primitive's `discharge` rule (`get` is `x[index]`, `swap` is a
read and a `dynamic_update_slice`, ...). A structured control-flow equation that
closes over references (`scan`, `while`, `cond`, also as staged from Python loops and
`if`s by the front end) is re-staged with each reference's value as an extra loop
carry (`scan`, `while`) or an extra operand and result (`cond`), its body discharged
the same way.

A reference may not leave the function that created it (JAX's ValueError). A
reference from outside the transformed function (a `Ref` it closes over, or a `Ref`
argument) stays a reference at the boundary (`at_boundary`): the program reads it once
at the start, works on its value, and stores the final value back once at the end, so
`grad` and `vmap` see plain values in between. As in JAX, differentiating a value
stored into such a reference, and storing into an unbatched one under `vmap`, are
errors at the store (`RefEffectError`); `vmap` maps a `Ref` argument given an axis
(`lift`: its value in, its final value out).
"""
from __future__ import annotations

import weakref

from astjax import core
from astjax.core import AbstractRef, ClosedJaxpr, Literal
from astjax.errors import (JAXAttributeError, JAXValueError, NotImplementedInAstjaxError,
                           user_location)
from astjax.primitives.cond import bind_cond, cond_p
from astjax.primitives.custom_derivatives import (body_of, checkpoint_p, custom_jvp_call_p,
                                                  custom_vjp_call_p, stop_gradient)
from astjax.primitives.jit_call import bind_jit, jit_p
from astjax.primitives.scan import bind_scan, scan_p
from astjax.primitives.state import (STATE_PRIMITIVES, Ref, RefEffectError, addupdate_p,
                                     freeze, ref_get, ref_set, swap_p)
from astjax.primitives.while_loop import bind_while, eager_loop, python_loop, while_p

_STATE = frozenset(STATE_PRIMITIVES)


_VMAP_STORE = ("performing {} operation with vmapped value on an unbatched array "
               "reference of type {}. Move the array reference to be an argument to the "
               "vmapped function?")


class Cell:
    """A reference during discharge: the value (a Tracer of the program being built)
    it holds at this point of the program; for a reference from outside, where it was
    last stored into (`src`) and, under `vmap`, the error a store into it is; `local`:
    created inside the function (`new_ref`)."""
    __slots__ = ("value", "src", "frozen", "local")

    def __init__(self, value, frozen=None, local=False):
        self.value, self.src, self.frozen, self.local = value, None, frozen, local

    def stored(self, loc, what):
        """Record a store at `loc` (`what`: 'a set/swap', 'an addupdate')."""
        if self.frozen is not None:
            raise RefEffectError(_VMAP_STORE.format(what, self.frozen), loc=loc)
        self.src = loc

    def inner(self, value):
        """The stand-in for this reference inside a nested program."""
        return Cell(value, self.frozen, self.local)

    def absorb(self, inner, value):
        """After a nested program: `value` held, stored into where `inner` was."""
        self.value = value
        self.src = inner.src or self.src


_uses_refs: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def uses_refs(jaxpr) -> bool:
    """Whether `jaxpr` (or a jaxpr nested in it) has a state equation or a
    reference-typed variable (memoized per jaxpr)."""
    jaxpr = jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr
    r = _uses_refs.get(jaxpr)
    if r is None:
        r = _uses_refs[jaxpr] = (
            any(type(v.aval) is AbstractRef for v in jaxpr.constvars + jaxpr.invars)
            or any(e.primitive in _STATE or any(uses_refs(j) for j in core.sub_jaxprs(e.params))
                   for e in jaxpr.eqns))
    return r


def outside_refs(closed: ClosedJaxpr) -> bool:
    """Whether `closed` takes references from outside: a `Ref` argument, or an eager
    `Ref` the function closes over (a reference-typed const)."""
    j = closed.jaxpr
    return any(type(v.aval) is AbstractRef for v in j.constvars + j.invars)


def discharge_closed(closed: ClosedJaxpr, what: str = "jit", keep_outside=False,
                     lift=()) -> ClosedJaxpr:
    """`closed` without references (itself when it has none). `what` names the
    transformation in errors (`jit`, `differentiation`, `vmap`). References from
    outside the function (`outside_refs`) stay at the boundary (`at_boundary`; `lift`:
    the reference arguments `vmap` maps), or with `keep_outside` leave `closed` as it
    is (`jit` runs it through `lift_outside_refs`); `pmap` refuses them."""
    if not uses_refs(closed.jaxpr):
        return closed
    jaxpr = closed.jaxpr
    if outside_refs(closed):
        if keep_outside:
            return closed
        if what != "pmap":
            return at_boundary(closed, what, lift)
        # JAX 0.10.2: a Ref argument is a ValueError, a closed-over Ref an
        # AttributeError (its pmap reads the avals' `nospec`, which references lack)
        arg = next((v.aval for v in jaxpr.invars if type(v.aval) is AbstractRef), None)
        if arg is not None:
            raise JAXValueError(
                f"Attempting to pass a Ref {arg} to {what}: a mapped argument must be an "
                f"array -- did you forget to unpack ([...]) the ref?",
                hint="pass r[...] and store the result back, or create the Ref inside "
                     "the function")
        aval = next(v.aval for v in jaxpr.constvars if type(v.aval) is AbstractRef)
        raise JAXAttributeError(
            f"a mutable array reference ({aval}) the function closes over is used inside "
            f"{what}; JAX 0.10.2 fails there too (AttributeError); references created "
            f"inside the function work",
            hint="create the Ref inside the function, or pass r[...] and store the "
                 "result back")
    hints = [v.hint for v in jaxpr.invars]

    def run(*args):
        outs = _eval(jaxpr, closed.consts, list(args))
        _no_escape(jaxpr, outs, what)
        return outs
    j, consts = core.stage_open(run, jaxpr.in_avals, hints)
    return ClosedJaxpr(j, consts)


def at_boundary(closed: ClosedJaxpr, what: str, lift=()) -> ClosedJaxpr:
    """`closed`, which takes references from outside, with only reads and stores of
    them at its boundary: each is read once at the start (`get`), its value threaded
    through the program, and, if the program stores into it, the final value stored
    back once at the end (`swap`, located at the last store). The reference arguments
    at positions `lift` become value arguments instead, their final values extra
    outputs after the function's. Under `vmap` (`what`), a store into any other
    reference is JAX's error."""
    jaxpr = closed.jaxpr
    lift = frozenset(lift)
    frozen = what == "vmap"

    def outside(ref, value):
        return Cell(value, core.get_aval(ref) if frozen else None)

    def run(*xs):
        consts = [outside(c, ref_get(c)) if type(v.aval) is AbstractRef else c
                  for v, c in zip(jaxpr.constvars, closed.consts)]
        args = [Cell(x) if i in lift else outside(x, ref_get(x))
                if type(v.aval) is AbstractRef else x
                for i, (v, x) in enumerate(zip(jaxpr.invars, xs))]
        outs = _eval(jaxpr, consts, args)
        _no_escape(jaxpr, outs, what)
        lifted = [args[i] for i in sorted(lift)]
        for ref, cell in zip(list(closed.consts) + list(xs), consts + args):
            if (isinstance(cell, Cell) and cell.src is not None
                    and not any(cell is c for c in lifted)):
                with core.source_info_context(cell.src):
                    ref_set(ref, ..., cell.value)
        return outs + [c.value for c in lifted]

    avals = [v.aval.inner_aval if i in lift else v.aval for i, v in enumerate(jaxpr.invars)]
    j, consts = core.stage_open(run, avals, [v.hint for v in jaxpr.invars])
    return ClosedJaxpr(j, consts)


def lift_outside_refs(closed: ClosedJaxpr):
    """`closed`, which takes references from outside (`outside_refs`), as a function of
    values: -> (ClosedJaxpr, the eager `Ref`s it closed over, the positions of its
    reference arguments). The jaxpr's inputs are the closed-over references' values,
    then the arguments (a reference argument: its value); its outputs are the
    function's, then the final values of those references, then of the reference
    arguments -- what `jit` stores back into them after the call."""
    jaxpr = closed.jaxpr
    ref_consts = [c for v, c in zip(jaxpr.constvars, closed.consts)
                  if type(v.aval) is AbstractRef]
    ref_args = [i for i, v in enumerate(jaxpr.invars) if type(v.aval) is AbstractRef]
    n = len(ref_consts)

    def run(*xs):
        cells = [Cell(x) for x in xs[:n]]
        it = iter(cells)
        consts = [next(it) if type(v.aval) is AbstractRef else c
                  for v, c in zip(jaxpr.constvars, closed.consts)]
        args = [Cell(x) if i in ref_args else x for i, x in enumerate(xs[n:])]
        outs = _eval(jaxpr, consts, args)
        _no_escape(jaxpr, outs, "jit")
        return outs + [c.value for c in cells] + [args[i].value for i in ref_args]

    avals = ([v.aval.inner_aval for v in jaxpr.constvars if type(v.aval) is AbstractRef]
             + [v.aval.inner_aval if type(v.aval) is AbstractRef else v.aval
                for v in jaxpr.invars])
    j, consts = core.stage_open(run, avals, [None] * n + [v.hint for v in jaxpr.invars])
    return ClosedJaxpr(j, consts), ref_consts, ref_args


def _no_escape(jaxpr, outs, what):
    for v, o in zip(jaxpr.outvars, outs):
        if isinstance(o, Cell):
            raise JAXValueError(f"a function traced for {what} returned a mutable array "
                                f"reference of type {v.aval}, but mutable array references "
                                f"cannot be returned", loc=_origin(jaxpr, v),
                                hint="return its value instead: jax.freeze(r) or r[...]")


def _origin(jaxpr, var):
    for e in jaxpr.eqns:
        if var in e.outvars:
            return e.source_info
    return None


def _eval(jaxpr, consts, args):
    """Stage `jaxpr` on `consts` and `args` (values, or `Cell`s for references) into
    the current builder, discharging its references; -> its outputs."""
    outs = core.eval_reference(jaxpr, consts, *args, interpret_eqn=_interpret)
    return _weak_literals(jaxpr.outvars, outs)


def _weak_literals(atoms, values):
    """`values` read from `atoms`, a weak-typed literal's kept weak (`2.0` in `c * 2.`)."""
    return [core.WeakConst(x) if isinstance(a, Literal) and a.aval.weak_type else x
            for a, x in zip(atoms, values)]


def _interpret(eqn, ins):
    ins = _weak_literals(eqn.invars, ins)
    with core.source_info_context(eqn.source_info):
        outs = _eqn(eqn, ins)
    return outs if eqn.primitive.multiple_results else outs[0]


def _eqn(eqn, ins):
    p, params = eqn.primitive, eqn.params
    if p in _STATE:
        if getattr(p, "ref_operand", False):
            cell = ins[0]
            if p is swap_p or p is addupdate_p:
                cell.stored(core.current_source_info(),
                            "a set/swap" if p is swap_p else "an addupdate")
            res = p.discharge(cell.value, *ins[1:], **params)
            if p is swap_p:
                old, cell.value = res
                return [old]
            if p is addupdate_p:
                cell.value = res
                return []
            return res if p.multiple_results else [res]
        return [Cell(p.discharge(*ins, **params), local=True)]     # new_ref, empty_ref
    rule = _CONTROL.get(p)
    if rule is not None and (any(isinstance(x, Cell) for x in ins)
                             or any(uses_refs(j) for j in core.sub_jaxprs(params))):
        return rule(eqn, ins)
    if any(isinstance(x, Cell) for x in ins):
        raise NotImplementedInAstjaxError(
            f"a mutable array reference from outside `{p.name}` (e.g. `checkpoint`, "
            f"`custom_jvp`) is used inside it; astjax supports that inside `scan`, "
            f"`while_loop`/`fori_loop` and `cond`, and references created inside",
            loc=eqn.source_info)
    if any(uses_refs(j) for j in core.sub_jaxprs(params)):
        params = {k: _local(v, eqn) for k, v in params.items()}
    outs = core.bind(p, *ins, **params)
    return outs if p.multiple_results else [outs]


def _local(param, eqn):
    """A parameter of `eqn` with the references created and used inside its jaxprs
    discharged (a `custom_jvp` or `checkpoint` body: its signature stays)."""
    if isinstance(param, tuple):
        return tuple(_local(q, eqn) for q in param)
    if isinstance(param, ClosedJaxpr) and uses_refs(param.jaxpr):
        return discharge_closed(param, eqn.primitive.name)
    if isinstance(param, core.Jaxpr) and uses_refs(param):
        out = None if param.constvars else discharge_closed(ClosedJaxpr(param, []),
                                                            eqn.primitive.name)
        if out is None or out.consts:   # (an open jaxpr cannot take new consts)
            raise NotImplementedInAstjaxError(
                f"mutable array references inside `{eqn.primitive.name}` are not "
                f"supported here", loc=eqn.source_info)
        return out.jaxpr
    return param


def _refs_of(values, kind=Cell):
    """The distinct `kind`s (by identity) among `values`, in order."""
    cells = []
    for x in values:
        if isinstance(x, kind) and not any(x is c for c in cells):
            cells.append(x)
    return cells


def _with_cells(values, cells, inner):
    """`values` with each of `cells` replaced by its stand-in in `inner`."""
    return [inner[_position(cells, x)] if isinstance(x, Cell) else x for x in values]


def _position(cells, x):
    return next(i for i, c in enumerate(cells) if c is x)


def _value_avals(cells):
    return [core.get_aval(c.value) for c in cells]


def _stand_ins(cells, values, seen):
    """Cells for `cells` inside a nested program, holding `values`; noted in `seen`."""
    inner = [c.inner(v) for c, v in zip(cells, values)]
    seen.append(inner)
    return inner


def _absorb(cells, values, seen):
    """After a nested program: `cells` hold `values`, stored into where their stand-ins
    in `seen` were."""
    for k, (c, v) in enumerate(zip(cells, values)):
        c.value = v
        for inner in seen:
            c.src = inner[k].src or c.src


# ------------------------------------------------------------- structured control flow


def _scan(eqn, ins):
    """The references a `scan` body closes over become leading carries."""
    p = eqn.params
    body = p["jaxpr"]
    nc, ncarry = p["num_consts"], p["num_carry"]
    consts, carry, xs = ins[:nc], ins[nc:nc + ncarry], ins[nc + ncarry:]
    if any(isinstance(x, Cell) for x in carry + xs):
        raise JAXValueError("a mutable array reference cannot be a loop carry or a scanned "
                            "input; close over it instead", loc=eqn.source_info)
    cells = _refs_of(consts)
    n = len(cells)
    x_avals = [v.aval for v in body.jaxpr.invars[nc + ncarry:]]
    carry_avals = [v.aval for v in body.jaxpr.invars[nc:nc + ncarry]]

    seen = []

    def step(*args):
        inner = _stand_ins(cells, args[:n], seen)
        outs = _eval(body.jaxpr, body.consts, _with_cells(consts, cells, inner) + list(args[n:]))
        _no_escape(body.jaxpr, outs, "scan")
        return [c.value for c in inner] + outs

    jaxpr, body_consts = core.stage_open(step, _value_avals(cells) + carry_avals + x_avals)
    outs = bind_scan((jaxpr, body_consts), [c.value for c in cells] + carry, xs,
                     length=p["length"], reverse=p["reverse"], unroll=p.get("unroll", 1))
    _absorb(cells, outs[:n], seen)
    return outs[n:]


def _while(eqn, ins):
    """The references the condition or the body close over become leading carries. A
    condition that writes references keeps its writes where JAX's discharge does: each
    step runs the test on the carry it starts from before the body, and the loop's own
    tests drop them (so the writes happen once per iteration).

    A `lax.while_loop` follows JAX's discharge further: its condition and its body
    each get their own copy of a reference both close over (the body never sees the
    condition's writes, nor the condition the body's; afterwards the reference holds
    the body's copy), and the condition runs on primals only: what it stores keeps
    the reference's previous tangent. A loop staged from a Python statement
    (`python_loop`) shares one copy between its test and body, as Python does (the
    front end moves a test that stores into the body:
    `while_loop.bind_while_test_last`)."""
    p = eqn.params
    ncc, nbc = p["cond_nconsts"], p["body_nconsts"]
    cc, bc, carry = ins[:ncc], ins[ncc:ncc + nbc], ins[ncc + nbc:]
    if any(isinstance(x, Cell) for x in carry):
        raise JAXValueError("a mutable array reference cannot be a loop carry; close over "
                            "it instead", loc=eqn.source_info)
    cond_j, body_j = p["cond_jaxpr"], p["body_jaxpr"]
    shared = python_loop(cond_j)
    if eager_loop(cond_j):   # (bound in an eager transformation's function)
        _one_reference_each(cc + bc, eqn, Cell)
    c_cells, b_cells = (_refs_of(cc + bc),) * 2 if shared else (_refs_of(cc), _refs_of(bc))
    slots = c_cells if shared else c_cells + b_cells   # the carried copies
    n, b0 = len(slots), 0 if shared else len(c_cells)
    carry_avals = [v.aval for v in body_j.jaxpr.invars[nbc:]]

    seen, wrote = [], {}

    def run(jaxpr, consts, cells, inner, args, what):
        before = [c.value for c in inner]
        outs = _eval(jaxpr.jaxpr, jaxpr.consts, _with_cells(consts, cells, inner) + list(args))
        wrote[what] = {cells[k] for k, (c, b) in enumerate(zip(inner, before))
                       if c.value is not b}
        return outs, before

    def test(*args):
        inner = [c.inner(v) for c, v in zip(c_cells, args[:len(c_cells)])]
        return run(cond_j, cc, c_cells, inner, args[n:], "cond")[0]

    avals = _value_avals(slots) + carry_avals
    cond_open = core.stage_open(test, avals)
    cond_writes = wrote["cond"]

    def step(*args):
        inner = _stand_ins(slots, args[:n], seen)
        if cond_writes:   # (its predicate unused: the loop's own test decides)
            _, before = run(cond_j, cc, c_cells, inner[:len(c_cells)], args[n:], "cond")
            for c, b in zip(inner, before):
                if c.value is not b:
                    c.value = _stored_primal(c.value, b) if c.local else stop_gradient(
                        c.value)
        outs = run(body_j, bc, b_cells, inner[b0:], args[n:], "body")[0]
        _no_escape(body_j.jaxpr, outs, "while_loop")
        return [c.value for c in inner] + outs

    body_open = core.stage_open(step, avals)
    if cond_writes & wrote["body"]:
        raise NotImplementedInAstjaxError(
            "Cannot write to the same ref in both cond and body of while loop.",
            loc=eqn.source_info, hint="write it in one of them (e.g. the body only)")
    outs = bind_while(cond_open, body_open, [c.value for c in slots] + carry)
    _absorb(slots, outs[:n], seen)   # (a reference in both: the body's copy last)
    return outs[n:]


def _cond(eqn, ins):
    """The references the branches close over become extra operands and results."""
    index, ops = ins[0], ins[1:]
    cells = _refs_of(ops)
    n = len(cells)
    plain = [x for x in ops if not isinstance(x, Cell)]
    branches = eqn.params["branches"]
    op_avals = [v.aval for v, x in zip(branches[0].jaxpr.invars, ops) if not isinstance(x, Cell)]
    seen = []

    def branch(br):
        def run(*args):
            inner = _stand_ins(cells, args[:n], seen)
            it = iter(args[n:])
            operands = [inner[_position(cells, x)] if isinstance(x, Cell) else next(it)
                        for x in ops]
            outs = _eval(br.jaxpr, br.consts, operands)
            _no_escape(br.jaxpr, outs, "cond")
            return outs + [c.value for c in inner]
        return core.stage_open(run, _value_avals(cells) + op_avals)

    outs = bind_cond(index, [branch(br) for br in branches],
                     [c.value for c in cells] + plain)
    k = len(outs) - n
    _absorb(cells, outs[k:], seen)
    return outs[:k]


def _checkpoint(eqn, ins):
    """The references a `checkpoint` body closes over become extra operands and results
    (its policy, `prevent_cse` and the rest kept)."""
    cells = _refs_of(ins)
    n = len(cells)
    params = dict(eqn.params)
    body = body_of(params.pop("jaxpr"))
    plain = [x for x in ins if not isinstance(x, Cell)]
    seen = []

    def run(*args):
        inner = _stand_ins(cells, args[:n], seen)
        it = iter(args[n:])
        operands = [inner[_position(cells, x)] if isinstance(x, Cell) else next(it) for x in ins]
        outs = _eval(body.jaxpr, body.consts, operands)
        _no_escape(body.jaxpr, outs, "checkpoint")
        return outs + [c.value for c in inner]

    avals = [v.aval for v, x in zip(body.jaxpr.invars, ins) if not isinstance(x, Cell)]
    j, consts = core.stage_open(run, _value_avals(cells) + avals)
    body, extra = core.split_consts(ClosedJaxpr(j, consts))
    flags = params.get("prevent_cse")
    if isinstance(flags, tuple):   # one flag per operand: the new ones (consts, values) too
        flags = (True,) * len(extra) + (False,) * n + tuple(
            f for f, x in zip(flags, ins) if not isinstance(x, Cell))
        params["prevent_cse"] = flags
    outs = core.bind(checkpoint_p, *extra, *[c.value for c in cells], *plain,
                     jaxpr=body.jaxpr, **params)
    k = len(outs) - n
    _absorb(cells, outs[k:], seen)
    return outs[:k]


def _jit(eqn, ins):
    """A `jit` equation taking references: each becomes its value, in its place among
    the operands, and the body returns the references' final values after its results
    (JAX's discharge of `jit`); the call stays one `jit` equation."""
    cells = _refs_of(ins)
    body = eqn.params["jaxpr"]
    first = [next(i for i, x in enumerate(ins) if x is c) for c in cells]
    seen = []

    def run(*args):
        inner = _stand_ins(cells, [args[i] for i in first], seen)
        operands = [inner[_position(cells, x)] if isinstance(x, Cell) else a
                    for x, a in zip(ins, args)]
        outs = _eval(body.jaxpr, body.consts, operands)
        _no_escape(body.jaxpr, outs, "jit")
        return outs + [c.value for c in inner]

    values = [x.value if isinstance(x, Cell) else x for x in ins]
    closed = core.stage(run, [core.get_aval(v) for v in values])
    outs = bind_jit(closed, values, eqn.params["name"], like=eqn.params)
    k = len(outs) - len(cells)
    _absorb(cells, outs[k:], seen)
    return outs[:k]


def _custom_call(eqn, ins):
    """A `custom_jvp_call` / `custom_vjp_call` that closes over references from outside
    (as JAX runs it: the primal function when the call is evaluated, the user's rule --
    whose primal part the equation then holds -- when it is differentiated). The call
    and its staged rule read the references' values as extra consts (stores inside
    them seen by their later reads); the references' final values come from the call's
    body evaluated beside it, outside differentiation: a custom rule stores primal
    values, as JAX's does."""
    p = eqn.params
    nc = p["num_consts"]
    if not any(isinstance(x, Cell) for x in ins):   # references created inside only
        params = {k: _local(v, eqn) for k, v in p.items()}
        return core.bind(eqn.primitive, *ins, **params)
    if any(isinstance(x, Cell) for x in ins[nc:]):
        raise NotImplementedInAstjaxError(
            f"a mutable array reference passed as an argument to a "
            f"{eqn.primitive.name.replace('_call', '')} function is not supported; "
            f"references it closes over are",
            loc=eqn.source_info, hint="close over the Ref instead of passing it")
    cells = _refs_of(ins[:nc])
    n = len(cells)
    seen: list = []
    consts = [x for x in ins[:nc] if not isinstance(x, Cell)]
    args = list(ins[nc:])

    def discharged(closed):
        """`closed` (consts + rest -> outs) with the references' values leading
        (cell values + plain consts + rest -> outs + final values)."""
        j = closed.jaxpr
        rest = [v.aval for v in j.invars[nc:]]

        def run(*xs):
            inner = _stand_ins(cells, xs[:n], seen)
            it = iter(xs[n:])
            operands = [inner[_position(cells, x)] if isinstance(x, Cell) else next(it)
                        for x in ins[:nc]] + list(it)
            outs = _eval(j, closed.consts, operands)
            _no_escape(j, outs, eqn.primitive.name)
            return outs + [c.value for c in inner]
        return core.stage(run, _value_avals(cells) + [core.get_aval(x) for x in consts] + rest)

    call = discharged(p["call_jaxpr"])
    n_out = len(p["call_jaxpr"].out_avals)
    body, extra = core.split_consts(core.ClosedJaxpr(
        core.Jaxpr(call.jaxpr.constvars, call.jaxpr.invars, call.jaxpr.outvars[:n_out],
                   call.jaxpr.eqns), call.consts))
    params = dict(p, call_jaxpr=body, num_consts=len(extra) + n + len(consts))
    skip = len(extra)
    # a rule staged at the call (the call is differentiated) is discharged as the body;
    # a Python rule (the call is not) reads the references itself if it ever runs
    for k in ("jvp_jaxpr_fun", "fwd_jaxpr_thunk"):
        rule = p.get(k)
        if isinstance(getattr(rule, "body", None), ClosedJaxpr):
            staged = discharged(rule.body)
            params[k] = _DischargedRule(staged, skip, len(staged.out_avals) - n, rule.n_out,
                                         repr(rule))
        elif rule is not None:   # its consts in their places, a reference's value in its
            it = iter(range(n, n + len(consts)))
            params[k] = _ValuesRule(rule, skip, [_position(cells, x) if isinstance(x, Cell)
                                                 else next(it) for x in ins[:nc]])
    values = [c.value for c in cells]
    outs = core.bind(eqn.primitive, *extra, *values, *consts, *args, **params)
    # the final values: the body beside the call, not differentiated
    finals = core.inline_jaxpr(call.jaxpr, call.consts, values + consts + args)[n_out:]
    finals = [v if out is inp else _stored_primal(f, v) if c.local else stop_gradient(f)
              for c, v, f, out, inp in zip(cells, values, finals, call.jaxpr.outvars[n_out:],
                                           call.jaxpr.invars[:n])]   # (v: not stored into)
    _absorb(cells, finals, seen)
    return outs


class _KeepTangent:
    """The jvp of `_stored_primal`: the new value, the previous value's tangent."""
    def __call__(self, consts, primals, tangents):
        return [primals[0]], [tangents[1]]

    def __repr__(self):
        return "keep_tangent"


def _stored_primal(new, old):
    """A reference's value after a custom rule's store of `new` over `old`, for a
    reference created inside the differentiated function: as in JAX (the rule stores a
    primal value; the reference's tangent stays), `new` whose tangent is `old`'s -- a
    `custom_jvp_call` that computes `new` exactly. (One from outside is not
    differentiated: `stop_gradient`.)"""
    aval = core.get_aval(old)
    if not core.differentiable(aval):
        return stop_gradient(new)
    body = core.stage(lambda n, o: [n], [aval, aval])
    return core.bind(custom_jvp_call_p, new, old, call_jaxpr=body, jvp_jaxpr_fun=_KeepTangent(),
                     num_consts=0, symbolic_zeros=False)[0]


class _DischargedRule:
    """A staged custom rule (`jvp` or `fwd`) whose references were discharged: it
    skips the call's `skip` leading consts, inlines `body` (reference values + consts +
    rest -> its `n_keep` outputs + final values) and returns its outputs split after
    `n_out`, as the rule it replaces."""
    __slots__ = ("body", "skip", "n_keep", "n_out", "name")

    def __init__(self, body, skip, n_keep, n_out, name):
        self.body, self.skip, self.n_keep, self.n_out = body, skip, n_keep, n_out
        self.name = name

    def __call__(self, consts, *lists, perturbed=None):
        xs = list(consts)[self.skip:] + [x for lst in lists for x in lst]
        outs = core.inline_jaxpr(self.body.jaxpr, self.body.consts, xs)[:self.n_keep]
        return outs[:self.n_out], outs[self.n_out:]

    def __repr__(self):
        return self.name


class _ValuesRule:
    """A Python custom rule of a call whose references were discharged: it skips the
    call's `skip` leading consts and gets the others in their original places (`where`:
    indexes into reference values + plain consts), each reference's value in its place."""
    __slots__ = ("rule", "skip", "where")

    def __init__(self, rule, skip, where):
        self.rule, self.skip, self.where = rule, skip, where

    def __call__(self, consts, *lists, **static):
        xs = list(consts)[self.skip:]
        return self.rule([xs[w] for w in self.where], *lists, **static)

    def __repr__(self):
        return repr(self.rule)


_CONTROL = {scan_p: _scan, while_p: _while, cond_p: _cond, checkpoint_p: _checkpoint,
            custom_jvp_call_p: _custom_call, custom_vjp_call_p: _custom_call, jit_p: _jit}

# ------------------------------------------------------------------ eager references


def _eager_apply(prim, args, params):
    """`prim` applied outside staging to operands some of which are eager `Ref`s: the
    equation discharged (each reference's value an input, its final value an output),
    run eagerly, and the final values stored back into the references."""
    eqn = core.Eqn(prim, [], [], params, user_location(3))
    if prim is while_p and not python_loop(params["cond_jaxpr"]):
        _one_reference_each(args[:params["cond_nconsts"] + params["body_nconsts"]], eqn)
    refs = _refs_of(args, Ref)
    held = [freeze(r) for r in refs]
    plain = [a for a in args if not isinstance(a, Ref)]

    def run(*xs):
        cells = [Cell(x) for x in xs[:len(refs)]]
        it = iter(xs[len(refs):])
        ins = [cells[_position(refs, a)] if isinstance(a, Ref) else next(it) for a in args]
        outs = _eqn(eqn, ins)
        return list(outs) + [c.value for c in cells]

    closed = core.stage(run, [core.get_aval(v) for v in held + plain])
    outs = core.inline_jaxpr(closed.jaxpr, closed.consts, held + plain)
    k = len(outs) - len(refs)
    for r, v in zip(refs, outs[k:]):
        ref_set(r, ..., v)
    return outs[:k] if prim.multiple_results else outs[0]


def _one_reference_each(consts, eqn, kind=Ref):
    """JAX runs an eager `lax.while_loop` as a jitted primitive, which refuses a
    reference passed twice: one both its condition and its body close over (`kind`:
    the eager `Ref`s, or the `Cell`s of an eager transformation's references)."""
    for j, r in enumerate(consts):
        i = next(i for i, q in enumerate(consts) if q is r) if isinstance(r, kind) else j
        if i < j:
            raise JAXValueError(
                f"only one reference to a mutable array may be passed as an argument to a "
                f"function, but when tracing while for jit the mutable array reference of "
                f"type {_ref_aval(r)} appeared at both args[{i}] and args[{j}].",
                loc=eqn.source_info if eqn.source_info.file else None,   # (else the caller)
                hint="JAX runs a while_loop outside jit as one jitted primitive: close over "
                     "the Ref in cond_fun or body_fun only, or jit the function")


def _ref_aval(r):
    return core.AbstractRef(core.get_aval(r.value)) if isinstance(r, Cell) else core.get_aval(r)


core.eager_ref_apply = _eager_apply
