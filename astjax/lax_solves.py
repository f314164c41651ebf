"""`lax.custom_linear_solve` and `lax.custom_root`: solvers differentiated implicitly.

- `custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False,
  has_aux=False)` stages the user's functions once, at the call, for b's shapes:
  `matvec(x)`, `solve(matvec, b)`, and -- when a transpose solver is given (or
  `symmetric=True`, which reuses `solve`) -- `vecmat`, matvec transposed by the AD
  pass (`linear_transpose`), and `transpose_solve(vecmat, b)`. They become one
  `custom_linear_solve` equation (its rules: `astjax/primitives/solves.py`).
- `custom_root(f, initial_guess, solve, tangent_solve, has_aux=False)` stages `f`,
  `solve(f, guess)` and `tangent_solve(linearized f at x, y)`, and binds a
  `custom_jvp_call` whose body is the solve and whose JVP rule is the implicit
  function theorem: with F(p, u*(p)) = 0, du* = -(d_u F)^-1 (d_p F dp); d_p F dp is
  the JVP of f in the values it closes over, at the solution, and (d_u F)^-1 is the
  staged tangent_solve. The primal of the rule is the same call again, so higher
  derivatives work as in JAX.

Both check what the user's functions return against b / initial_guess with JAX's
error classes (a TypeError for another pytree structure, a ValueError for other
shapes), located at the user's call.
"""
from __future__ import annotations

from . import core, tree_util
from .core import bind, raw
from .errors import (DTypeError, JAXValueError, ShapeValueError, StructureError,
                     check_callable)
from .primitives.custom_derivatives import custom_jvp_call_p
from .primitives.ops import neg
from .primitives.solves import LinearSolveTuple, bind_linear_solve
from .primitives.vma import _vma_str, enclosing_body, staged_vmas, staging_inputs
from .staging import as_callable, leaf_aval, stage_flat
from .transforms import ad

__all__ = ["custom_linear_solve", "custom_root"]


def _stage(fun, n_args, value, avals):
    """Stage `fun` on `n_args` arguments, each shaped as the pytree `value` (leaves
    `avals`) -> (body taking its consts first, consts, out_tree)."""
    _, call_tree = tree_util.flatten_for_staging(((value,) * n_args, {}))
    closed, out_tree = stage_flat(raw(fun), call_tree, list(avals) * n_args)
    body, consts = core.split_consts(closed)
    return body, consts, out_tree


def _check_tree(name, expected_name, out_tree, tree, has_aux):
    """JAX's checks: with has_aux a pair (result, aux), the result shaped as `tree`."""
    if has_aux:
        kids = out_tree.children
        if len(kids) != 2:
            raise ShapeValueError(f"{name}() produced a pytree with structure {out_tree}, but a "
                                  "pytree tuple with auxiliary output was expected because "
                                  "has_aux was set to True.")
        out_tree = kids[0]
    if out_tree != tree:
        raise StructureError(f"{name}() output pytree structure must match {expected_name}, "
                             f"got {out_tree} and {tree}.",
                             hint=f"return from {name} a value shaped as {expected_name} "
                                  "(the same nesting of tuples, lists and dicts)")


def _check_shapes(name, expected_name, body, n, avals):
    """JAX's check that a function maps b's space to itself (a ValueError), and that
    it keeps b's dtypes (the equation's outputs have b's types)."""
    got = [tuple(v.aval.shape) for v in body.jaxpr.outvars[:n]]
    want = [tuple(a.shape) for a in avals]
    if got != want:
        raise ShapeValueError(f"{name}() output shapes must match {expected_name}, got {got} "
                              f"and {want}",
                              hint=f"{name} must map {expected_name}'s space to itself (a "
                                   "square linear system)")
    got = [v.aval.dtype for v in body.jaxpr.outvars[:n]]
    if got != [a.dtype for a in avals]:
        raise DTypeError(f"{name}() output dtypes must match {expected_name}, got "
                         f"{[str(d) for d in got]} and {[str(a.dtype) for a in avals]}",
                         hint=f"cast {name}'s result to {expected_name}'s dtype")


def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False,
                        has_aux=False):
    """The solution x of the linear system `matvec(x) == b`, computed by
    `solve(matvec, b)` and differentiated as that solution, not through `solve`
    (which may be any algorithm, e.g. a `while_loop` iteration).

    `b` is any pytree of arrays; `matvec` must be linear and map it to a pytree of the
    same structure, shapes and dtypes. Forward mode: dx = solve(db - dmatvec(x)),
    where dmatvec is matvec's derivative in the values it closes over. Reverse mode
    needs `transpose_solve(vecmat, y)`, solving the transposed system (vecmat is
    matvec transposed, built by the AD pass), or `symmetric=True`, which uses `solve`
    for both. With `has_aux`, `solve` (and `transpose_solve`) return `(x, aux)`; the
    result is then that pair and aux has no derivative."""
    for f, what in ((matvec, "matvec"), (solve, "solve")):
        check_callable(f, f"custom_linear_solve {what}")
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    b_leaves, tree = tree_util.flatten_for_staging(b)
    avals = [leaf_aval(x, "custom_linear_solve b") for x in b_leaves]
    n = len(avals)
    mv = as_callable(matvec)
    mv_body, mv_consts, out_tree = _stage(mv, 1, b, avals)
    _check_tree("matvec", "b", out_tree, tree, False)
    _check_shapes("matvec", "b", mv_body, n, avals)
    s_body, s_consts, s_tree = _stage(lambda x: as_callable(solve)(matvec, x), 1, b, avals)
    _check_tree("solve", "b", s_tree, tree, has_aux)
    _check_shapes("solve", "b", s_body, n, avals)
    if transpose_solve is None:
        vm_body = ts_body = None
        vm_consts = ts_consts = []
    else:
        check_callable(transpose_solve, "custom_linear_solve transpose_solve")
        if symmetric:
            vecmat, vm_body, vm_consts = matvec, mv_body, mv_consts
        else:  # matvec transposed by the AD pass: it reads matvec's consts
            vm_body, extra = core.split_consts(ad.cleanup(ad.transpose_jaxpr(
                mv_body, [False] * len(mv_consts) + [True] * n)))
            vm_consts = list(extra) + list(mv_consts)
            vecmat = _applier(vm_body, vm_consts, tree)
        if symmetric and transpose_solve is solve:   # the same function of the same map
            ts_body, ts_consts = s_body, s_consts
        else:
            ts_body, ts_consts, ts_tree = _stage(
                lambda x: as_callable(transpose_solve)(vecmat, x), 1, b, avals)
            _check_tree("transpose_solve", "b", ts_tree, tree, has_aux)
            _check_shapes("transpose_solve", "b", ts_body, n, avals)
    outs = bind_linear_solve(LinearSolveTuple(mv_consts, vm_consts, s_consts, ts_consts),
                             LinearSolveTuple(mv_body, vm_body, s_body, ts_body), b_leaves)
    return tree_util.tree_unflatten(s_tree, outs)


def _tangents_like(g, primals):
    """`g` (a function linearized at `primals`) refusing tangents typed otherwise than
    them, JAX's ValueError (shape, dtype, and inside a shard_map body the varying manual
    axes where both are known)."""
    def apply(t):
        leaves, _ = tree_util.flatten_for_staging(t)
        inside = enclosing_body() is not None
        pv = staged_vmas(primals) if inside else [None] * len(primals)
        tv = staged_vmas(leaves) if inside else [None] * len(leaves)
        for p, x, vp, vt in zip(primals, leaves, pv, tv):
            pa, ta = core.get_aval(p), core.get_aval(x)
            if (pa.shape, pa.dtype) != (ta.shape, ta.dtype) or (
                    vp is not None and vt is not None and vp != vt):
                want = _vma_str(pa, vp or ())
                raise JAXValueError(
                    "linearized function called on tangent values inconsistent with the "
                    f"original primal values:\nGot tangent aval {'~' * ta.weak_type}"
                    f"{_vma_str(ta, vt or ())} for primal aval {want} but expected {want}.",
                    hint="call the linearized function on a value shaped, typed (and "
                         "varying) as the primal, e.g. jnp.ones_like(x)")
        return g(t)
    return apply


def _applier(body, consts, tree, lead=(), skip=0):
    """The Python function `y -> body(*consts, *lead, *leaves(y))[skip:]` on pytrees
    shaped `tree`, staged inline where it is called."""
    def apply(y):
        leaves, _ = tree_util.flatten_for_staging(y)
        outs = ad.inline(body, list(consts) + list(lead) + leaves)
        return tree_util.tree_unflatten(tree, outs[skip:])
    return apply

# ------------------------------------------------------------------------ custom_root


class _RootJvp:
    """The JVP rule of a `custom_root` call (kept in its `custom_jvp_call` params):
    `(consts, primals, tangents)` with primals = f's consts, solve's consts,
    tangent_solve's consts, the initial guess."""
    __slots__ = ("f", "call", "l_and_s", "lengths", "n_x")

    def __init__(self, f, call, l_and_s, lengths, n_x):
        self.f, self.call, self.l_and_s, self.lengths, self.n_x = f, call, l_and_s, lengths, n_x

    def __repr__(self):
        return "custom_root_jvp"

    def __call__(self, _consts, primals, tangents):
        nf, ns, nl = self.lengths
        sol = bind(custom_jvp_call_p, *primals, call_jaxpr=self.call, jvp_jaxpr_fun=self,
                   num_consts=0, symbolic_zeros=False)
        x, aux = list(sol[:self.n_x]), sol[self.n_x:]
        f_consts, f_dots = list(primals[:nf]), list(tangents[:nf])
        ls_consts = list(primals[nf + ns:nf + ns + nl])
        if f_consts:
            # d_p F(p, x) dp: f's JVP in its consts at the solution
            jv, _ = ad.jvp_jaxpr(self.f, [True] * nf + [False] * self.n_x, instantiate=True)
            rhs = ad.inline(jv, f_consts + x + f_dots)[self.n_x:]
        else:
            rhs = [ad.zeros_like_aval(core.get_aval(v)) for v in x]
        dx = ad.inline(self.l_and_s, ls_consts + x + rhs)
        return sol, [neg(d) for d in dx] + [ad.zeros_like_aval(core.get_aval(a))
                                               for a in aux]


def custom_root(f, initial_guess, solve, tangent_solve, has_aux=False):
    """A root of `f` found by `solve(f, initial_guess)`, differentiated by the implicit
    function theorem: derivatives flow to the values `f` closes over, never through
    `solve`.

    `f` maps a pytree shaped as `initial_guess` to one of the same structure.
    `tangent_solve(g, y)` returns x with g(x) == y for g, the function `f` linearized
    at the root (for a scalar: `lambda g, y: y / g(1.0)`; for a small vector, a dense
    solve with `jax.jacobian(g)`). With `has_aux`, `solve` returns `(root, aux)` and
    so does `custom_root`."""
    for fn, what in ((f, "f"), (solve, "solve"), (tangent_solve, "tangent_solve")):
        check_callable(fn, f"custom_root {what}")
    g_leaves, tree = tree_util.flatten_for_staging(initial_guess)
    avals = [leaf_aval(x, "custom_root initial_guess") for x in g_leaves]
    n = len(avals)
    f_body, f_consts, f_tree = _stage(as_callable(f), 1, initial_guess, avals)
    _check_tree("f", "initial_guess", f_tree, tree, False)
    s_body, s_consts, s_tree = _stage(lambda x: as_callable(solve)(f, x), 1, initial_guess, avals)
    _check_tree("solve", "initial_guess", s_tree, tree, has_aux)

    nf = len(f_consts)
    f_jvp, _ = ad.jvp_jaxpr(f_body, [False] * nf + [True] * n, instantiate=True)

    def linearize_and_solve(x, y):
        x_leaves, _ = tree_util.flatten_for_staging(x)
        # f linearized at x: its JVP in x (the primal outputs are dead code)
        g = _applier(f_jvp, f_consts, tree, x_leaves, skip=n)
        return as_callable(tangent_solve)(_tangents_like(g, x_leaves), y)
    with staging_inputs(g_leaves * 2):   # (inside a shard_map body: x, y typed as the guess)
        ls_body, ls_consts, ls_tree = _stage(linearize_and_solve, 2, initial_guess, avals)
    _check_tree("tangent_solve", "x", ls_tree, tree, False)
    # the primal body takes every operand and runs the solve on its own
    sj = s_body.jaxpr
    ns = len(s_consts)
    skip = lambda cs: [core.Var(core.get_aval(c)) for c in cs]  # noqa: E731
    call = core.ClosedJaxpr(core.Jaxpr([], skip(f_consts) + sj.invars[:ns] + skip(ls_consts)
                                       + sj.invars[ns:], sj.outvars, sj.eqns), [])
    rule = _RootJvp(f_body, call, ls_body, (len(f_consts), ns, len(ls_consts)), n)
    outs = bind(custom_jvp_call_p, *f_consts, *s_consts, *ls_consts, *g_leaves,
                call_jaxpr=call, jvp_jaxpr_fun=rule, num_consts=0, symbolic_zeros=False)
    return tree_util.tree_unflatten(s_tree, outs)
