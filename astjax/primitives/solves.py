"""`custom_linear_solve`: every rule of the linear-solve primitive (JAX's `linear_solve_p`).

`custom_linear_solve[const_lengths, matvec, vecmat, solve, transpose_solve] *consts *b`
computes x = solve(b) and is differentiated as the solution of the linear system
`matvec(x) = b`, never through the solver. The four functions are ClosedJaxprs
without consts, each taking its own consts (a segment of the operands, lengths in
`const_lengths`) then one vector of b's leaves:

- `matvec`: x -> A x;  `vecmat`: y -> A^T y (None when there is no transpose_solve);
- `solve`: b -> x (and, with `has_aux`, auxiliary outputs after x);
- `transpose_solve`: y -> A^-T y (the same aux outputs; None: no reverse mode).

Rules:
  * impl / lowering: the `solve` jaxpr, inlined.
  * jvp (A x = b  =>  A dx = db - dA x): dx is another `custom_linear_solve` of the
    same functions on `db - (d matvec)(x)`, where the second term is the JVP of
    matvec in its consts at the solution; aux outputs have zero tangents.
  * transpose (linear in b only): the transposed system -- the operands and jaxprs
    of matvec/vecmat and of solve/transpose_solve swap places -- applied to the
    cotangent of x.
  * vmap: a fixpoint over which leaves of x (= of b: the system is square) are
    mapped through all four functions, then each function batched with those dims;
    values the batched bodies capture become leading consts of their segment.
  * dce: the bodies are pruned and unused consts dropped (x keeps every output:
    its types are b's).
  * printed source: the solve, inlined (the numbers are the same; the derivative
    rule is not kept in the source, as for custom_jvp functions).

The public `lax.custom_linear_solve` (which stages the user's functions and builds
`vecmat` by transposing matvec) is in `astjax/lax_solves.py`: it needs the AD passes.
"""
from __future__ import annotations

from typing import NamedTuple

from .. import core
from ..core import bind
from ..errors import DerivativeNotImplementedError, DifferentiationTypeError, ShapeError
from ..pyast import comment, statement_rule
from .base import add_tangents, instantiate, lax_ops, matchaxis, register

__all__ = ["linear_solve_p", "LinearSolveTuple", "bind_linear_solve"]


class LinearSolveTuple(NamedTuple):
    """One entry per function of a linear solve (const counts, or their jaxprs)."""
    matvec: object
    vecmat: object
    solve: object
    transpose_solve: object

    def transpose(self):
        """The same for the transposed system: matvec <-> vecmat, solve <-> transpose_solve."""
        return LinearSolveTuple(self.vecmat, self.matvec, self.transpose_solve, self.solve)


linear_solve_p = core.new_primitive("custom_linear_solve", multiple_results=True,
                                    higher_order=True)


def bind_linear_solve(consts: LinearSolveTuple, jaxprs: LinearSolveTuple, b):
    """The one place the equations are made: `consts` holds each function's operand
    list, `jaxprs` the functions (ClosedJaxprs without consts, or None). -> outputs."""
    lengths = LinearSolveTuple(*[len(c) for c in consts])
    flat = [x for c in consts for x in c]
    return bind(linear_solve_p, *flat, *b, const_lengths=lengths, **jaxprs._asdict())


def _split(args, const_lengths):
    """Operands -> (LinearSolveTuple of const lists, b list)."""
    out, k = [], 0
    for n in const_lengths:
        out.append(list(args[k:k + n]))
        k += n
    return LinearSolveTuple(*out), list(args[k:])


def _aval(x):
    return x.aval if core.is_undefined(x) else core.get_aval(x)


def _jaxprs(params) -> LinearSolveTuple:
    return LinearSolveTuple(*[params[k] for k in LinearSolveTuple._fields])

# ---- abstract eval, impl, lowering ----------------------------------------------


def _ls_ae(*avals, const_lengths, **fns):
    consts, b = _split(avals, const_lengths)
    solve = fns["solve"]
    for name, j in fns.items():
        if j is None:
            continue
        ins = getattr(consts, name) + b
        if len(j.in_avals) != len(ins) or any(
                x.shape != y.shape or x.dtype != y.dtype for x, y in zip(j.in_avals, ins)):
            raise ShapeError(f"custom_linear_solve: {name} takes "
                             f"{[a.str_short(True) for a in j.in_avals]}, the operands are "
                             f"{[a.str_short(True) for a in ins]}")
    return list(b) + list(solve.out_avals[len(b):])


def _ls_impl(*args, const_lengths, solve, **_):
    consts, b = _split(args, const_lengths)
    return core.eval_closed(solve, *consts.solve, *b)


def _ls_lowering(ctx, *args, const_lengths, solve, **_):
    consts, b = _split(args, const_lengths)
    return ctx.lower_jaxpr(solve.jaxpr, [], consts.solve + b)

# ---- autodiff ----------------------------------------------------------------------


def _ls_jvp(tx, primals, tangents, *, const_lengths, **fns):
    params = dict(const_lengths=const_lengths, **fns)
    x = bind(linear_solve_p, *primals, **params)
    consts, _ = _split(primals, const_lengths)
    t_consts, b_dot = _split(tangents, const_lengths)
    n = len(b_dot)
    x_leaves, aux = x[:n], x[n:]
    mv_nz = [not isinstance(t, core.Zero) for t in t_consts.matvec]
    rhs = list(b_dot)
    if any(mv_nz):
        # (d matvec)(x): the JVP of matvec in its consts, x held fixed
        jv, _ = tx.jvp_jaxpr(fns["matvec"], mv_nz + [False] * n, instantiate=True)
        outs = tx.inline(jv, consts.matvec + x_leaves
                         + [t for t in t_consts.matvec if not isinstance(t, core.Zero)])
        lax = lax_ops()
        rhs = [add_tangents(r, lax.neg(d)) for r, d in zip(rhs, outs[n:])]
    zero_aux = [core.Zero(core.get_aval(a)) for a in aux]
    if all(isinstance(r, core.Zero) for r in rhs):
        return x, [core.Zero(core.get_aval(v)) for v in x_leaves] + zero_aux
    flat = [c for cs in consts for c in cs]
    dx = bind(linear_solve_p, *flat, *[instantiate(r, core.get_aval(v))
                                       for r, v in zip(rhs, x_leaves)], **params)
    return x, list(dx[:n]) + zero_aux


def _ls_transpose(tx, cts, *args, const_lengths, **fns):
    jaxprs = _jaxprs(fns)
    if jaxprs.transpose_solve is None:
        raise DifferentiationTypeError(
            "transpose_solve required for backwards mode automatic differentiation of "
            "custom_linear_solve",
            hint="pass transpose_solve= (or symmetric=True when matvec is symmetric), or "
                 "use forward mode (jvp, jacfwd)")
    consts, b = _split(args, const_lengths)
    if any(core.is_undefined(c) for cs in consts for c in cs):
        raise DerivativeNotImplementedError(
            "custom_linear_solve is linear in b only: its transpose cannot give cotangents "
            "of the values matvec or the solvers close over")
    n = len(b)
    if any(not isinstance(c, core.Zero) for c in cts[n:]):
        raise DerivativeNotImplementedError(
            "custom_linear_solve: the auxiliary outputs of solve have no cotangent")
    if all(isinstance(c, core.Zero) for c in cts[:n]):
        return [None] * len(args)
    ct_x = [instantiate(c, _aval(v)) for c, v in zip(cts[:n], b)]
    out = bind_linear_solve(consts.transpose(), jaxprs.transpose(), ct_x)
    return [None] * sum(const_lengths) + [o if core.is_undefined(v) else None
                                          for o, v in zip(out[:n], b)]

# ---- vmap --------------------------------------------------------------------------


def _ls_batch(tx, args, dims, *, const_lengths, **fns):
    frame = core.axis_frame()
    size, name = frame.size, frame.name
    jaxprs = _jaxprs(fns)
    consts, b = _split(args, const_lengths)
    c_dims, b_dims = _split(dims, const_lengths)
    n = len(b)
    n_aux = len(jaxprs.solve.out_avals) - n

    def vdims(flags):
        return [0 if f else None for f in flags]

    def mapped(which, flags):
        j = getattr(jaxprs, which)
        if j is None:
            return [False] * len(flags)
        return tx.mapped_outputs(j, getattr(c_dims, which) + vdims(flags), size, name)

    # x and b have the same types (square system): one flag per leaf for both
    bat = [d is not None for d in b_dims]
    aux = [False] * n_aux
    while True:
        s = mapped("solve", bat)
        st = mapped("transpose_solve", bat) if jaxprs.transpose_solve is not None else s
        new = [any(f) for f in zip(bat, s[:n], st[:n], mapped("matvec", bat)[:n],
                                   mapped("vecmat", bat)[:n])]
        new_aux = [a or u or v for a, u, v in zip(aux, s[n:], st[n:])]
        if new == bat and new_aux == aux:
            break
        bat, aux = new, new_aux
    new_consts, new_jaxprs = [], []
    for which in LinearSolveTuple._fields:
        j = getattr(jaxprs, which)
        if j is None:
            new_consts.append([])
            new_jaxprs.append(None)
            continue
        force = bat + (aux if which in ("solve", "transpose_solve") else [])
        body, extra, _ = tx.batch_subjaxpr(j, getattr(c_dims, which) + vdims(bat), size,
                                           name, force_out=force)
        new_consts.append(list(extra) + getattr(consts, which))
        new_jaxprs.append(body)
    new_b = [matchaxis(x, d, 0, size) if f else x for x, d, f in zip(b, b_dims, bat)]
    outs = bind_linear_solve(LinearSolveTuple(*new_consts), LinearSolveTuple(*new_jaxprs),
                             new_b)
    return outs, vdims(bat + aux)

# ---- dead-code elimination ---------------------------------------------------------


def _ls_dce(tx, eqn, used_outputs):
    if not any(used_outputs):
        return None, [False] * len(eqn.invars)
    lengths = eqn.params["const_lengths"]
    n_b = len(eqn.invars) - sum(lengths)
    params, used_in, new_lengths = dict(eqn.params), [], []
    for which, nc in zip(LinearSolveTuple._fields, lengths):
        j = eqn.params[which]
        if j is None:
            new_lengths.append(0)
            continue
        pruned, used = tx.dce_jaxpr(j.jaxpr)
        keep = used[:nc] + [True] * n_b
        invars = [v for v, u in zip(pruned.invars, keep) if u]
        params[which] = core.ClosedJaxpr(core.Jaxpr([], invars, pruned.outvars, pruned.eqns),
                                         [])
        used_in += used[:nc]
        new_lengths.append(sum(used[:nc]))
    used_in += [True] * n_b
    params["const_lengths"] = LinearSolveTuple(*new_lengths)
    new = eqn.replace(invars=[a for a, u in zip(eqn.invars, used_in) if u], params=params)
    return new, used_in

# ---- printed source: the solve, inlined ---------------------------------------------


@statement_rule
def _ls_source(gen, eqn, stmts):
    consts, b = _split(eqn.invars, eqn.params["const_lengths"])
    jaxpr = eqn.params["solve"].jaxpr
    if gen.comments:
        stmts.append(comment("custom_linear_solve: the solve (inlined)"))
    outs = [gen.out_name(v, gen.hint_from(v, o) or "x")
            for v, o in zip(eqn.outvars, jaxpr.outvars)]
    stmts.extend(gen.branch_block(jaxpr, consts.solve + b, outs, eqn.outvars))


register(linear_solve_p, impl=_ls_impl, abstract_eval=_ls_ae, lowering=_ls_lowering,
         jvp=_ls_jvp, transpose=_ls_transpose, batch=_ls_batch, dce=_ls_dce,
         source=_ls_source)
