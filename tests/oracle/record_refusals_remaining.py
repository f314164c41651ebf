"""Programs JAX 0.10.2 computes (or refuses with a given error) that astjax refused or
computed differently before (issue 13, the remaining items): a `while_loop` condition
writing a `Ref`, `lax.linalg.schur` with `select_callable` and without sorting,
`lax.composite` whose decomposition returns None, a list appended to after the Python
loop that built it, a `Ref` created in a differentiated function kept as a custom_vjp
residual and read or written by bwd, and a traced value in `nondiff_argnums` under
eager `grad` / `vmap`.

`CASES` maps a name to a function of a namespace `J` (`J.jax`, `J.jnp`, `J.lax`) that
returns a list of values; run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_refusals_remaining.py` writes
refusals_remaining.json ({"ok": [leaves as float lists]} or {"error": class name});
`tests/test_refusals_remaining.py` runs the same cases on astjax.
"""
import functools
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
# an error's verdict: the first of these its class derives from (by name)
CLASSES = ("UnexpectedTracerError", "NotImplementedError", "TypeError", "ValueError",
           "IndexError", "RuntimeError", "Exception")


def _leaves(J, out):
    return [np.asarray(x, np.float64).tolist() for x in J.jax.tree_util.tree_leaves(out)]


def run(case, J):
    """{"ok": the result's leaves} or {"error": the class of the error}."""
    try:
        return {"ok": _leaves(J, case(J))}
    except Exception as e:   # noqa: BLE001 (the verdict is the class)
        if isinstance(e, J.jax.errors.UnexpectedTracerError):
            return {"error": "UnexpectedTracerError"}
        names = [c.__name__ for c in type(e).__mro__]
        return {"error": next(n for n in CLASSES if n in names)}


# ---- a while_loop condition writing a Ref (JAX: once per step, before the body)

def _counting_loop(J, start, inner=False):
    def f(x):
        r = J.jax.new_ref(J.jnp.float32(0.0)) if inner else outer

        def cond(c):
            r[...] += c + 1.0
            return c < 5.0
        out = J.lax.while_loop(cond, lambda c: c + 2.0, x)
        return (out, r[...]) if inner else out
    outer = None if inner else J.jax.new_ref(J.jnp.float32(0.0))
    return f, outer


def while_cond_ref_eager(J):
    f, r = _counting_loop(J, 0.0)
    return [f(0.0), r[...]]


def while_cond_ref_jit(J):
    f, r = _counting_loop(J, 0.0)
    return [J.jax.jit(f)(1.0), r[...]]


def while_cond_ref_inner_jit(J):
    f, _ = _counting_loop(J, 0.0, inner=True)
    return J.jax.jit(f)(0.0)


def while_cond_ref_inner_vmap(J):
    f, _ = _counting_loop(J, 0.0, inner=True)
    return J.jax.vmap(f)(J.jnp.array([0.0, 3.0, 9.0]))


def while_cond_ref_inner_jvp(J):
    f, _ = _counting_loop(J, 0.0, inner=True)
    return J.jax.jvp(f, (0.0,), (1.0,))


def while_cond_ref_zero_steps(J):
    f, _ = _counting_loop(J, 0.0, inner=True)
    return J.jax.jit(f)(7.0)


def while_cond_and_body_write(J):
    r = J.jax.new_ref(J.jnp.float32(0.0))

    def cond(c):
        r[...] += 1.0
        return c < 5.0

    def body(c):
        r[...] += 10.0
        return c + 2.0
    return [J.jax.jit(lambda x: J.lax.while_loop(cond, body, x))(0.0)]


def while_cond_writes_body_writes_other(J):
    def f(x):
        r = J.jax.new_ref(J.jnp.float32(0.0))
        s = J.jax.new_ref(J.jnp.float32(1.0))

        def cond(c):
            r[...] += c
            return c < 5.0

        def body(c):
            s[...] *= 2.0
            return c + 2.0
        return J.lax.while_loop(cond, body, x), r[...], s[...]
    return J.jax.jit(f)(0.0)


# ---- JAX's discharge gives a while_loop's condition and body their own copies of a Ref
# both close over (the body's is what the Ref holds afterwards), and differentiates
# the condition's writes as constants (the condition runs on primals only)

def _stale_loop(J, inner=True, test_reads=False):
    """cond adds 1 to r (and with `test_reads` tests r); the body adds r + 1 to c."""
    def f(x):
        r = J.jax.new_ref(J.jnp.float32(0.5)) if inner else outer

        def cond(c):
            r[...] += 1.0
            return r[...] < 4.0 if test_reads else c < 5.0
        return J.lax.while_loop(cond, lambda c: c + r[...] + 1.0, x), r[...]
    outer = None if inner else J.jax.new_ref(J.jnp.float32(0.5))
    return f, outer


def while_body_reads_cond_ref_jit(J):
    return J.jax.jit(_stale_loop(J)[0])(0.0)


def while_body_reads_cond_ref_eager(J):
    f, r = _stale_loop(J, inner=False)
    return [f(0.0), r[...]]


def while_body_reads_cond_ref_outer_jit(J):
    f, r = _stale_loop(J, inner=False)
    return [J.jax.jit(f)(1.0), r[...]]


def while_body_reads_cond_ref_vmap(J):
    return J.jax.vmap(_stale_loop(J)[0])(J.jnp.array([0.0, 3.0, 9.0]))


def while_body_reads_cond_ref_jvp(J):
    return J.jax.jvp(_stale_loop(J)[0], (0.0,), (1.0,))


def while_body_reads_cond_ref_jit_vmap(J):
    return J.jax.jit(J.jax.vmap(_stale_loop(J)[0]))(J.jnp.array([0.0, 3.0, 9.0]))


def while_body_reads_cond_ref_jit_jvp(J):
    return J.jax.jit(lambda x: J.jax.jvp(_stale_loop(J)[0], (x,), (1.0,)))(0.0)


def while_cond_tests_its_ref_jit(J):
    return J.jax.jit(_stale_loop(J, test_reads=True)[0])(0.0)


def _cond_reads_body_ref(J, inner=True):
    """The body adds 1 to r; the condition tests r (its own copy, never updated)."""
    def f(x):
        r = J.jax.new_ref(J.jnp.float32(0.0)) if inner else outer

        def body(c):
            r[...] += c
            return c + 2.0
        out = J.lax.while_loop(lambda c: (r[...] < 5.0) & (c < 9.0), body, x)
        return out, r[...]
    outer = None if inner else J.jax.new_ref(J.jnp.float32(0.0))
    return f, outer


def while_cond_reads_body_ref_jit(J):
    return J.jax.jit(_cond_reads_body_ref(J)[0])(0.0)


def while_cond_reads_body_ref_eager(J):
    f, r = _cond_reads_body_ref(J, inner=False)
    return [f(1.0), r[...]]


def while_cond_reads_body_ref_vmap(J):
    return J.jax.vmap(_cond_reads_body_ref(J)[0])(J.jnp.array([0.0, 1.0, 7.0]))


def while_cond_reads_body_ref_jit_vmap(J):
    return J.jax.jit(J.jax.vmap(_cond_reads_body_ref(J)[0]))(J.jnp.array([0.0, 1.0, 7.0]))


def while_cond_reads_body_ref_jit_jvp(J):
    return J.jax.jit(lambda x: J.jax.jvp(_cond_reads_body_ref(J)[0], (x,), (1.0,)))(0.0)


def while_cond_reads_body_ref_jvp(J):
    return J.jax.jvp(_cond_reads_body_ref(J)[0], (0.0,), (1.0,))


def _kept_tangent_loop(J):
    """The Ref starts from 2x: its tangent (2) stays through the condition's writes."""
    def f(x):
        r = J.jax.new_ref(x * 2.0)

        def cond(c):
            r[...] += c * c
            return c < 5.0
        return J.lax.while_loop(cond, lambda c: c + 2.0, x), r[...]
    return f


def while_cond_ref_tangent_kept_jvp(J):
    return J.jax.jvp(_kept_tangent_loop(J), (1.0,), (1.0,))


def while_cond_sets_ref_jvp(J):
    def f(x):
        r = J.jax.new_ref(x * 3.0)

        def cond(c):
            r[...] = c * 4.0
            return c < 5.0
        return J.lax.while_loop(cond, lambda c: c + 2.0, x), r[...] * x
    return J.jax.jvp(f, (1.0,), (1.0,))


def while_cond_ref_outer_jvp(J):
    f, r = _counting_loop(J, 0.0)
    return [*J.jax.jvp(f, (0.0,), (1.0,)), r[...]]


def while_cond_ref_vmap_jvp(J):
    f, _ = _counting_loop(J, 0.0, inner=True)
    return J.jax.vmap(lambda x: J.jax.jvp(f, (x,), (1.0,)))(J.jnp.array([0.0, 4.0]))



# ---- nested eager transformations of those loops: JAX binds the loop eagerly (a jitted
# primitive: its ValueError) unless a `jit` stands between

_XS = [0.0, 1.0, 7.0]


def while_ref_grad_vmap(J):
    f = _cond_reads_body_ref(J)[0]
    return J.jax.grad(lambda x: J.jax.vmap(f)(x)[0].sum())(J.jnp.array(_XS))


def while_ref_vmap_grad(J):
    f = _stale_loop(J)[0]
    return J.jax.vmap(J.jax.grad(lambda x: f(x)[0]))(J.jnp.array(_XS))


def while_ref_jvp_vmap(J):
    return J.jax.jvp(J.jax.vmap(_stale_loop(J)[0]), (J.jnp.array(_XS),), (J.jnp.ones(3),))


def while_ref_vmap_jvp(J):
    f = _cond_reads_body_ref(J)[0]
    return J.jax.vmap(lambda x: J.jax.jvp(f, (x,), (1.0,)))(J.jnp.array(_XS))


def while_ref_vmap_vmap(J):
    return J.jax.vmap(J.jax.vmap(_stale_loop(J)[0]))(J.jnp.array([_XS]))


def while_ref_jvp_jvp(J):
    f = _stale_loop(J)[0]
    return J.jax.jvp(lambda x: J.jax.jvp(f, (x,), (1.0,)), (1.0,), (1.0,))


def while_ref_grad_grad(J):
    f = _cond_reads_body_ref(J)[0]
    return [J.jax.grad(J.jax.grad(lambda x: f(x)[0]))(1.0)]


def while_ref_vmap_jit_vmap(J):
    return J.jax.vmap(J.jax.jit(J.jax.vmap(_stale_loop(J)[0])))(J.jnp.array([_XS]))


def while_ref_jvp_jit_vmap(J):
    f = J.jax.jit(J.jax.vmap(_cond_reads_body_ref(J)[0]))
    return J.jax.jvp(f, (J.jnp.array(_XS),), (J.jnp.ones(3),))

# ---- lax.linalg.schur: select_callable unused, sort_eig_vals refused when lowered

_A = [[1.0, 2.0, 0.0], [3.0, 1.0, 1.0], [0.0, 1.0, 4.0]]


def _schur(J, **kw):
    return J.lax.linalg.schur(J.jnp.array(_A), **kw)


def schur_select_no_sort(J):
    out = _schur(J, select_callable=lambda w: w.real > 0)
    return [type(out).__name__ == "list"] + list(out)


def schur_select_no_sort_jit(J):
    return J.jax.jit(lambda a: J.lax.linalg.schur(a, select_callable=lambda w: w > 0))(
        J.jnp.array(_A))


def schur_no_vectors(J):
    out = _schur(J, compute_schur_vectors=False)
    return [type(out).__name__ == "list", len(out)] + list(out)


def schur_sort(J):
    return _schur(J, sort_eig_vals=True, select_callable=lambda w: w.real > 0)


def schur_sort_jit(J):
    return J.jax.jit(lambda a: J.lax.linalg.schur(a, sort_eig_vals=True))(J.jnp.array(_A))


def schur_sort_jaxpr(J):
    """make_jaxpr keeps the equation: JAX refuses only when lowering."""
    text = str(J.jax.make_jaxpr(lambda a: J.lax.linalg.schur(a, sort_eig_vals=True))(
        J.jnp.array(_A)))
    return ["sort_eig_vals=True" in text, "select_callable=None" in text]


# ---- lax.composite whose decomposition returns None

def _none_composite(J):
    @functools.partial(J.lax.composite, name="my.nothing")
    def nothing(x, scale=None):
        x = x * 2.0
    return nothing


def composite_none_eager(J):
    return [_none_composite(J)(J.jnp.float32(1.0)) is None]


def composite_none_jit(J):
    return [J.jax.jit(_none_composite(J))(J.jnp.float32(1.0)) is None]


def composite_none_beside(J):
    g = _none_composite(J)
    return J.jax.jit(lambda x: (g(x, scale=3.0), x + 1.0))(J.jnp.float32(1.0))[1:]


def composite_empty_tuple_jit(J):
    @functools.partial(J.lax.composite, name="my.empty")
    def empty(x):
        return ()
    return [J.jax.jit(empty)(J.jnp.float32(1.0)) == ()]


# ---- a list built by `append` in a loop (a scan under jit), changed after the loop

def _rows(J, x):
    ys = []
    for i in range(3):
        x = x * 2.0 + i
        ys.append(x)
    return ys, x


def list_append_after_loop(J):
    def f(x):
        ys, x = _rows(J, x)
        ys.append(x + 1.0)
        return J.jnp.stack(ys), len(ys)
    return J.jax.jit(f)(J.jnp.float32(1.0))[:1]


def list_returned(J):
    return J.jax.jit(lambda x: _rows(J, x)[0])(J.jnp.ones(2))


def list_appended_returned(J):
    def f(x):
        ys, x = _rows(J, x)
        ys.append(-x)
        return ys
    return J.jax.jit(f)(J.jnp.ones(2))


def list_leaves_counted(J):
    def f(x):
        ys, _ = _rows(J, x)
        return x * len(J.jax.tree_util.tree_leaves(ys))
    return [J.jax.jit(f)(1.0)]


def list_edited_after_loop(J):
    def f(x):
        ys, _ = _rows(J, x)
        ys.insert(0, x)
        ys.extend([x * 10.0])
        last = ys.pop()
        zs = ys + [last]
        return J.jnp.stack(zs[::-1]), ys[-1], len(zs)
    return J.jax.jit(f)(J.jnp.float32(1.0))


def list_index_past_end(J):
    return J.jax.jit(lambda x: _rows(J, x)[0][3])(1.0)


def list_appended_in_second_loop(J):
    def f(x):
        ys, x = _rows(J, x)
        for i in range(2):
            ys.append(x * i)
        total = 0.0
        for y in ys:
            total = total + y
        return J.jnp.stack(ys), total
    return J.jax.jit(f)(J.jnp.float32(1.0))


def list_append_after_loop_vmap_grad(J):
    def f(x):
        ys, x = _rows(J, x)
        ys.append(x * x)
        return J.jnp.sum(J.jnp.stack(ys))
    return J.jax.vmap(J.jax.grad(f))(J.jnp.array([1.0, 2.0]))


# ---- a Ref created in the differentiated function, a custom_vjp residual read by bwd

def _bwd_reads_ref(J):
    @J.jax.custom_vjp
    def f(x, r):
        return x * 2.0

    def bwd(res, g):
        return (g * res[...], None)
    f.defvjp(lambda x, r: (x * 2.0, r), bwd)

    def h(x):
        q = J.jax.new_ref(x * 5.0)
        return f(x, q) + q[...]
    return h


def bwd_reads_inner_ref_grad(J):
    return [J.jax.grad(_bwd_reads_ref(J))(3.0)]


def bwd_reads_inner_ref_jit_grad(J):
    return [J.jax.jit(J.jax.grad(_bwd_reads_ref(J)))(3.0)]


def bwd_reads_inner_ref_vjp(J):
    out, pull = J.jax.vjp(_bwd_reads_ref(J), 3.0)
    return [out, pull(1.0)]


def bwd_reads_inner_ref_vmap_grad(J):
    return J.jax.vmap(J.jax.grad(_bwd_reads_ref(J)))(J.jnp.array([1.0, 3.0]))


# ---- a custom_vjp bwd writing a Ref: a residual created inside the differentiated
# function, or a nondiff argument (JAX: a tracer when created inside under grad)

def _bwd_writes(J, nondiff=False):
    def bwd(r, *res_g):
        r[...] += res_g[-1]
        return (res_g[-1] * r[...],) + (() if nondiff else (None,))
    if nondiff:
        f = functools.partial(J.jax.custom_vjp, nondiff_argnums=(1,))(lambda x, r: x * 2.0)
        f.defvjp(lambda x, r: (x * 2.0, None), bwd)
    else:
        f = J.jax.custom_vjp(lambda x, r: x * 2.0)
        f.defvjp(lambda x, r: (x * 2.0, r), bwd)
    return f


def _bwd_writes_inner(J, nondiff=False, init=None):
    f = _bwd_writes(J, nondiff)

    def h(x):
        q = J.jax.new_ref(x * 5.0 if init is None else J.jnp.float32(init))
        return f(x, q) + q[...]
    return h


def bwd_writes_inner_ref_grad(J):
    return [J.jax.grad(_bwd_writes_inner(J))(3.0)]


def bwd_writes_inner_ref_jit_grad(J):
    return [J.jax.jit(J.jax.grad(_bwd_writes_inner(J)))(3.0)]


def bwd_writes_inner_ref_vmap_grad(J):
    return J.jax.vmap(J.jax.grad(_bwd_writes_inner(J)))(J.jnp.array([1.0, 3.0]))


def bwd_writes_inner_const_ref_grad(J):
    return [J.jax.grad(_bwd_writes_inner(J, init=5.0))(3.0)]


def nondiff_inner_ref_bwd_writes_grad(J):
    return [J.jax.grad(_bwd_writes_inner(J, nondiff=True, init=5.0))(3.0)]


def nondiff_inner_ref_bwd_writes_vmap_grad(J):
    return J.jax.vmap(J.jax.grad(_bwd_writes_inner(J, nondiff=True, init=5.0)))(
        J.jnp.array([1.0, 3.0]))


def nondiff_ref_arg_bwd_writes_grad(J):
    f, q = _bwd_writes(J, nondiff=True), J.jax.new_ref(J.jnp.float32(5.0))
    return [J.jax.grad(lambda x, r: f(x, r) + r[...])(3.0, q), q[...]]


def nondiff_ref_arg_bwd_writes_jit_grad(J):
    f, q = _bwd_writes(J, nondiff=True), J.jax.new_ref(J.jnp.float32(5.0))
    return [J.jax.jit(J.jax.grad(lambda x, r: f(x, r) + r[...]))(3.0, q), q[...]]


def nondiff_outer_ref_bwd_writes_grad(J):
    f, q = _bwd_writes(J, nondiff=True), J.jax.new_ref(J.jnp.float32(5.0))
    return [J.jax.grad(lambda x: f(x, q) + q[...])(3.0), q[...]]


def nondiff_ref_made_in_vmap_grad(J):
    """A Ref an eager vmap's function creates, nondiff to a custom_vjp under grad."""
    f = _bwd_writes(J, nondiff=True)

    def g(x):
        q = J.jax.new_ref(J.jnp.float32(5.0))
        return J.jax.grad(lambda y: f(y, q) + q[...])(x), q[...]
    return J.jax.vmap(g)(J.jnp.array([1.0, 3.0]))


def nondiff_ref_made_in_vmap(J):
    f = _bwd_writes(J, nondiff=True)

    def g(x):
        q = J.jax.new_ref(J.jnp.float32(5.0))
        return f(x, q) + q[...]
    return J.jax.vmap(g)(J.jnp.array([1.0, 3.0]))


# ---- a traced value in nondiff_argnums under eager grad / vmap (JAX: a tracer there
# is its UnexpectedTracerError for custom_vjp; custom_jvp computes)

def _nondiff_vjp(J):
    @functools.partial(J.jax.custom_vjp, nondiff_argnums=(1,))
    def f(x, s):
        return x * s
    f.defvjp(lambda x, s: (x * s, None), lambda s, _, g: (g * s,))
    return f


def _nondiff_jvp(J):
    @functools.partial(J.jax.custom_jvp, nondiff_argnums=(1,))
    def f(x, s):
        return x * s
    f.defjvp(lambda s, p, t: (p[0] * s, t[0] * s))
    return f


NONDIFF = {
    "grad_same": lambda J, f: J.jax.grad(lambda x: f(x, x))(2.0),
    "grad_nondiff_only": lambda J, f: J.jax.grad(lambda s: f(1.0, s))(2.0),
    "grad_other_arg": lambda J, f: J.jax.grad(f)(2.0, 3.0),
    "grad_computed": lambda J, f: J.jax.grad(lambda x, s: f(x, s * x))(2.0, 3.0),
    "grad_other_computed": lambda J, f: J.jax.grad(lambda x, s: f(x, s * 2.0))(2.0, 3.0),
    "vmap_mapped": lambda J, f: J.jax.vmap(f)(J.jnp.ones(2), J.jnp.arange(2.0)),
    "vmap_unmapped": lambda J, f: J.jax.vmap(f, in_axes=(0, None))(J.jnp.ones(2), 3.0),
    "vmap_grad_unmapped": lambda J, f: J.jax.vmap(J.jax.grad(f), in_axes=(0, None))(
        J.jnp.ones(2), 3.0),
    "grad_scan_carry": lambda J, f: J.jax.grad(lambda x, s: J.lax.scan(
        lambda c, _: (f(c, s), None), x, None, length=2)[0])(2.0, 3.0),
    "jit_grad_nondiff_only": lambda J, f: J.jax.jit(J.jax.grad(lambda s: f(1.0, s)))(2.0),
}


def nondiff_vjp_tree_grad(J):
    """A pytree (an array pair) in nondiff_argnums, read by bwd, under eager grad."""
    @functools.partial(J.jax.custom_vjp, nondiff_argnums=(1,))
    def f(x, p):
        return x * p[0] + p[1]
    f.defvjp(lambda x, p: (f(x, p), None), lambda p, _, g: (g * p[0] + p[1],))
    return [J.jax.grad(f)(2.0, (J.jnp.float32(3.0), J.jnp.ones(())))]


def nondiff_vjp_key_read_by_bwd_grad(J):
    """A PRNG key in nondiff_argnums that bwd draws from, under eager grad."""
    @functools.partial(J.jax.custom_vjp, nondiff_argnums=(1,))
    def f(x, k):
        return x * J.jax.random.uniform(k)
    f.defvjp(lambda x, k: (f(x, k), None),
             lambda k, _, g: (g * J.jax.random.uniform(J.jax.random.fold_in(k, 1)),))
    return [J.jax.grad(f)(2.0, J.jax.random.key(3))]


def _nondiff_case(maker, how):
    def case(J):
        return [NONDIFF[how](J, maker(J))]
    case.__name__ = f"nondiff_{maker.__name__[len('_nondiff_'):]}_{how}"
    return case


CASES = {f.__name__: f for f in (
    while_cond_ref_eager, while_cond_ref_jit, while_cond_ref_inner_jit,
    while_cond_ref_inner_vmap, while_cond_ref_inner_jvp, while_cond_ref_zero_steps,
    while_cond_and_body_write, while_cond_writes_body_writes_other,
    while_body_reads_cond_ref_jit, while_body_reads_cond_ref_eager,
    while_body_reads_cond_ref_outer_jit, while_body_reads_cond_ref_vmap,
    while_body_reads_cond_ref_jvp, while_body_reads_cond_ref_jit_vmap,
    while_body_reads_cond_ref_jit_jvp, while_cond_tests_its_ref_jit,
    while_cond_reads_body_ref_jit, while_cond_reads_body_ref_eager,
    while_cond_reads_body_ref_vmap, while_cond_reads_body_ref_jvp,
    while_cond_reads_body_ref_jit_vmap, while_cond_reads_body_ref_jit_jvp,
    while_cond_ref_tangent_kept_jvp, while_cond_sets_ref_jvp, while_cond_ref_outer_jvp,
    while_cond_ref_vmap_jvp, while_ref_grad_vmap, while_ref_vmap_grad, while_ref_jvp_vmap,
    while_ref_vmap_jvp, while_ref_vmap_vmap, while_ref_jvp_jvp, while_ref_grad_grad,
    while_ref_vmap_jit_vmap, while_ref_jvp_jit_vmap,
    schur_select_no_sort, schur_select_no_sort_jit, schur_no_vectors, schur_sort,
    schur_sort_jit, schur_sort_jaxpr,
    composite_none_eager, composite_none_jit, composite_none_beside,
    composite_empty_tuple_jit,
    list_append_after_loop, list_returned, list_appended_returned, list_leaves_counted,
    list_edited_after_loop, list_index_past_end, list_appended_in_second_loop,
    list_append_after_loop_vmap_grad,
    bwd_reads_inner_ref_grad, bwd_reads_inner_ref_jit_grad, bwd_reads_inner_ref_vjp,
    bwd_reads_inner_ref_vmap_grad, bwd_writes_inner_ref_grad, bwd_writes_inner_ref_jit_grad,
    bwd_writes_inner_ref_vmap_grad, bwd_writes_inner_const_ref_grad,
    nondiff_inner_ref_bwd_writes_grad, nondiff_inner_ref_bwd_writes_vmap_grad,
    nondiff_ref_arg_bwd_writes_grad, nondiff_ref_arg_bwd_writes_jit_grad,
    nondiff_outer_ref_bwd_writes_grad, nondiff_ref_made_in_vmap_grad,
    nondiff_ref_made_in_vmap, nondiff_vjp_tree_grad,
    nondiff_vjp_key_read_by_bwd_grad) + tuple(
        _nondiff_case(m, h) for m in (_nondiff_vjp, _nondiff_jvp) for h in NONDIFF)}


if __name__ == "__main__":
    import types
    import jax
    J = types.SimpleNamespace(jax=jax, jnp=jax.numpy, lax=jax.lax)
    (HERE / "refusals_remaining.json").write_text(json.dumps(
        {"jax": jax.__version__, "cases": {n: run(c, J) for n, c in CASES.items()}},
        indent=1, sort_keys=True) + "\n")
