"""An inner `jit` kept as one `jit` equation, recorded from JAX 0.10.2 (issue 13): the
printed jaxprs (shared `let` bindings, suffixed names, names suggested into a call's
body), the StableHLO text (`func.func private` per distinct body, `call`s), and values.

`CASES` maps a name to a function of a namespace `J` (`J.jax`, `J.jnp`, `J.lax`,
`J.checkify`, `J.print_saved_residuals`)
returning a dict of JSON-able results (texts and values). Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_jit_call.py` writes jit_call.json;
`tests/test_jit_call.py` runs the same cases on astjax.
"""
import functools
import json
import re
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
C3 = np.arange(3.0, dtype=np.float32)


def _fns(J):
    """The functions the cases call: `g` (jitted), `f` calling it twice."""
    jax, jnp = J.jax, J.jnp

    @jax.jit
    def g(x):
        return jnp.sin(x) * 2

    def f(x):
        return g(x) + g(x + 1)
    return g, f


def _tolist(x):
    return np.asarray(x, dtype=np.float64).tolist()


def twice(J):
    g, f = _fns(J)
    return {"jaxpr": str(J.jax.make_jaxpr(f)(1.0)),
            "hlo": J.jax.jit(f).lower(1.0).as_text(),
            "value": _tolist(J.jax.jit(f)(0.3))}


def once(J):
    g, _ = _fns(J)

    def f(x):
        return g(x) + 1
    return {"jaxpr": str(J.jax.make_jaxpr(f)(1.0))}


def nested(J):
    jax = J.jax
    g, _ = _fns(J)

    @jax.jit
    def h(x, y):
        return g(x) * y, x

    def f1(x):
        return h(x, 2.0)

    def f2(x):
        return h(x, 2.0)[0] + g(x)

    def f3(x):   # h shared, and g inside it shared with the outer call
        a, b = h(x, 2.0)
        c, d = h(x + 1, 2.0)
        return a + b + c + d + g(x)
    return {"jaxpr1": str(jax.make_jaxpr(f1)(1.0)), "jaxpr2": str(jax.make_jaxpr(f2)(1.0)),
            "jaxpr3": str(jax.make_jaxpr(f3)(1.0)), "hlo3": jax.jit(f3).lower(1.0).as_text(),
            "hlo2": jax.jit(f2).lower(1.0).as_text(),
            "value2": _tolist(jax.jit(f2)(0.7)), "grad2": _tolist(jax.grad(f2)(0.7))}


def two_shapes(J):
    jax, jnp = J.jax, J.jnp
    g, _ = _fns(J)

    def f(x, v):
        return g(x) + g(x) + g(v).sum() + g(v).sum()
    v = jnp.ones(3)
    return {"jaxpr": str(jax.make_jaxpr(f)(1.0, v)), "hlo": jax.jit(f).lower(1.0, v).as_text(),
            "value": _tolist(jax.jit(f)(0.5, v))}


def closure(J):
    jax, jnp = J.jax, J.jnp

    @jax.jit
    def gc(x):
        return x * C3

    def f(x):
        k = jax.jit(lambda y: y * x)
        return gc(x) + k(x)
    x = jnp.ones(3)
    return {"jaxpr": str(jax.make_jaxpr(f)(x)), "hlo": jax.jit(f).lower(x).as_text(),
            "value": _tolist(jax.jit(f)(x * 2)),
            "grad": _tolist(jax.grad(lambda x: f(x).sum())(x * 2))}


def _many_sins(J, x):
    for _ in (0,) * 11:   # (a static tuple: unrolled by astjax too, not a scan)
        x = J.jnp.sin(x)
    return x


def big_bodies(J):
    jax = J.jax

    def f(x):
        return jax.lax.cond(x > 0, lambda y: _many_sins(J, y), lambda y: y, x)

    def f2(x):
        return jax.jit(lambda y: _many_sins(J, y))(x)
    return {"cond": str(jax.make_jaxpr(f)(1.0)), "jit": str(jax.make_jaxpr(f2)(1.0))}


def vmap_twice(J):
    jax, jnp = J.jax, J.jnp
    _, f = _fns(J)
    xs = jnp.arange(3.0)
    return {"jaxpr": str(jax.make_jaxpr(jax.vmap(f))(xs)), "value": _tolist(jax.vmap(f)(xs))}


def jvp_twice(J):
    jax = J.jax
    _, f = _fns(J)

    def fj(x):
        return jax.jvp(f, (x,), (x,))
    return {"jaxpr": str(jax.make_jaxpr(fj)(1.0)), "value": _tolist(jax.jit(fj)(0.4))}


def grad_twice(J):
    jax = J.jax
    _, f = _fns(J)
    return {"jaxpr": str(jax.make_jaxpr(jax.grad(f))(1.0)),
            "value": _tolist(jax.jit(jax.grad(f))(0.4)),
            "hessian": _tolist(jax.hessian(f)(0.4))}


def same_name(J):
    jax = J.jax

    @jax.jit
    def g2(x):
        return x + 1

    def f(x, y):
        return g2(x) + g2(y) + jax.jit(lambda z: z)(x) + jax.jit(lambda z: z)(x)
    y = J.jnp.ones(2)
    return {"jaxpr": str(jax.make_jaxpr(f)(1.0, y)), "hlo": jax.jit(f).lower(1.0, y).as_text(),
            "value": _tolist(jax.jit(f)(1.0, y))}


def _scale(x, k):
    return x * k


def statics_and_constants(J):
    """Static arguments and a partial (the name of the function they wrap), bodies
    with no operand, a Python scalar result (weakly typed)."""
    jax, jnp = J.jax, J.jnp
    js = jax.jit(_scale, static_argnums=1)
    jp = jax.jit(functools.partial(_scale, k=3.0))

    @jax.jit
    def const():
        return jnp.arange(3.0)

    @jax.jit
    def three(x):
        return 3

    def f(x):
        return js(x, 2.0) + jp(x) + const() + three(x)
    x = jnp.ones(3)
    return {"jaxpr": str(jax.make_jaxpr(f)(x)), "hlo": jax.jit(f).lower(x).as_text(),
            "value": _tolist(jax.jit(f)(x)), "grad": _tolist(jax.grad(lambda x: f(x).sum())(x))}


def _log_plus_one(J, g, x):
    return g(x) + 1


def checkify_inside(J):
    """checkify finds a NaN made inside an inner jit (at its primitive)."""
    jax = J.jax
    g = jax.jit(J.jnp.log)
    err, out = J.checkify.checkify(lambda x: _log_plus_one(J, g, x),
                                   errors=J.checkify.float_checks)(-1.0)
    return {"error": err.get(), "value": _tolist(out)}


def _dead(J, x):
    y = J.jnp.sin(x)
    J.jnp.cos(y)   # (dead: make_jaxpr keeps it, the lowering drops it)
    return y * 2


def dead_code(J):
    """Equations whose results are unused: every one printed, none lowered."""
    jax = J.jax
    x = J.jnp.ones(2)
    return {"jaxpr": str(jax.make_jaxpr(lambda x: _dead(J, x))(x)),
            "hlo": jax.jit(lambda x: _dead(J, x)).lower(x).as_text()}


def _outer(J, x, k):
    return _dead(J, x) * k


def outer_jit(J):
    """`make_jaxpr(jit(f))`: one `jit` equation around f's body; `jit(f).trace(x).jaxpr`
    f's body itself; static arguments; jit of jit; inline=True; transformed."""
    jax = J.jax
    jf = jax.jit(lambda x: _dead(J, x))
    js = jax.jit(functools.partial(_outer, J), static_argnums=1)
    return {"jaxpr": str(jax.make_jaxpr(jf)(1.0)),
            "trace": str(jf.trace(1.0).jaxpr),
            "static": str(jax.make_jaxpr(js, static_argnums=1)(1.0, 3.0)),
            "jit_of_jit": str(jax.make_jaxpr(jax.jit(jf))(1.0)),
            "inline": str(jax.make_jaxpr(jax.jit(lambda x: _dead(J, x), inline=True))(1.0)),
            "grad": str(jax.make_jaxpr(jax.grad(jf))(1.0)),
            "vmap": str(jax.make_jaxpr(jax.vmap(jf))(J.jnp.ones(2)))}


def _printed(J, run):
    """What `run()` prints (debug callbacks included), its lines."""
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        run()
        J.jax.effects_barrier()
    return buf.getvalue().splitlines()


def effects(J):
    """A debug print inside an inner jit: the call stays one equation (its body has
    the effect), a private function makes the callback; printed once per call, once
    under grad (the forward call), per element under vmap."""
    jax = J.jax

    @jax.jit
    def p(x):
        jax.debug.print("x={x}", x=x)
        return x * 2

    def f(x):
        return p(x) + 1
    return {"jaxpr": str(jax.make_jaxpr(f)(1.0)), "hlo": jax.jit(f).lower(1.0).as_text(),
            "grad_jaxpr": str(jax.make_jaxpr(jax.grad(f))(1.0)),
            "printed": [len(_printed(J, lambda: jax.jit(f)(3.0))),
                        len(_printed(J, lambda: jax.grad(f)(3.0))),
                        len(_printed(J, lambda: jax.vmap(f)(J.jnp.arange(2.0))))],
            "value": _tolist(jax.jit(f)(3.0)), "grad": _tolist(jax.grad(f)(3.0))}


def refs(J):
    """A jit taking a mutable reference from its caller."""
    jax, jnp = J.jax, J.jnp

    @jax.jit
    def r(ref, x):
        ref[...] += x
        return x * 2

    def f(x):
        ref = jax.new_ref(jnp.zeros(()))
        y = r(ref, x)
        return ref[...] + y
    return {"jaxpr": str(jax.make_jaxpr(f)(1.0)), "hlo": jax.jit(f).lower(1.0).as_text(),
            "value": _tolist(jax.jit(f)(1.5))}


def local_refs(J):
    """A jit whose body creates and uses its own mutable reference: one equation."""
    jax, jnp = J.jax, J.jnp

    @jax.jit
    def g(x):
        r = jax.new_ref(jnp.zeros(()))
        r[...] += x
        r[...] += x
        return r[...] * 2

    def f(x):
        return g(x) + 1
    return {"jaxpr": str(jax.make_jaxpr(f)(1.0)), "hlo": jax.jit(f).lower(1.0).as_text(),
            "value": _tolist(jax.jit(f)(1.5)), "grad": _tolist(jax.grad(f)(1.5)),
            "vmap": _tolist(jax.vmap(f)(jnp.arange(2.0)))}


def _without_locations(text):
    """A module's text without its debug locations (`loc(...)`, `#loc` aliases:
    JAX's name this recording's file path)."""
    text = re.sub(r" loc\((?:[^()]|\([^()]*\))*\)", "", text)
    return "\n".join(ln for ln in text.splitlines() if not ln.startswith("#loc")) + "\n"


def symbolic(J):
    """An inner jit under `export` with a symbolic dimension."""
    jax, jnp = J.jax, J.jnp
    from_spec = jax.ShapeDtypeStruct(jax.export.symbolic_shape("n"), jnp.float32)
    g, _ = _fns(J)

    def f(x):
        return g(x) + 1
    exp = jax.export.export(jax.jit(f))(from_spec)
    return {"jaxpr": str(jax.make_jaxpr(f)(from_spec)),
            "hlo": _without_locations(exp.mlir_module()),
            "value": _tolist(exp.call(jnp.arange(3.0)))}


def _scale_add(x, y):
    return x * 2 + y


def donated(J):
    """`donate_argnums` of an inner jit: its `donated_invars` (printed when one is
    true), through grad (the known call keeps its operands' flags; the residuals and
    the transposed call donate nothing), vmap, jvp (a tangent donated with its primal),
    and make_jaxpr of the jit itself."""
    jax, jnp = J.jax, J.jnp
    jf = jax.jit(_scale_add, donate_argnums=0)

    def h(a):
        return jf(a, a + 1) + jf(a, 1.0)

    def k(a):
        return jf(a, a)
    return {"outer": str(jax.make_jaxpr(jf)(1.0, 2.0)), "jaxpr": str(jax.make_jaxpr(h)(1.0)),
            "grad": str(jax.make_jaxpr(jax.grad(h))(1.0)),
            "vmap": str(jax.make_jaxpr(jax.vmap(h))(jnp.ones(2))),
            "jvp": str(jax.make_jaxpr(lambda a: jax.jvp(k, (a,), (a,)))(1.0)),
            "value": _tolist(jax.jit(h)(0.5)), "grad_value": _tolist(jax.grad(h)(0.5))}


def two_donations(J):
    """Jits of one function with different `donate_argnums` share one body: one `let`
    binding (the calls differ by `donated_invars`), one private function."""
    jax = J.jax
    j0, j1 = jax.jit(_scale_add), jax.jit(_scale_add, donate_argnums=0)
    j2 = jax.jit(_scale_add, donate_argnums=(0, 1))

    def h(a):
        return j0(a, 1.0) + j1(a, 2.0) + j1(a + 1, 3.0) + j2(a, a)
    return {"jaxpr": str(jax.make_jaxpr(h)(1.0)), "hlo": jax.jit(h).lower(1.0).as_text(),
            "value": _tolist(jax.jit(h)(0.5))}


def _dot_sin(J, x, w):
    return J.jnp.sin(J.jnp.dot(w, x)) * 2


def remat_policies(J):
    """`checkpoint(policy=...)` looks into an inner jit: what is saved
    (`print_saved_residuals`, file paths cut to the file name), and the gradient."""
    jax, jnp = J.jax, J.jnp
    g = jax.jit(functools.partial(_dot_sin, J))

    def f(x, w):
        return g(x, w).sum()
    x, w = jnp.arange(3.0), jnp.full((3, 3), 0.3, jnp.float32)   # (strong: no convert)
    pols = jax.checkpoint_policies
    out = {}
    for name, pol in [("nothing", pols.nothing_saveable), ("dots", pols.dots_saveable),
                      ("everything", pols.everything_saveable), ("none", None)]:
        fn = f if pol is None else jax.checkpoint(f, policy=pol)
        lines = _printed(J, lambda: J.print_saved_residuals(fn, x, w))
        out["saved_" + name] = "\n".join(re.sub(r"/\S*/", "", ln) for ln in lines)
        out["grad_" + name] = _tolist(jax.grad(fn, argnums=(0, 1))(x, w)[1])
    return out


CASES = {f.__name__: f for f in [twice, once, nested, two_shapes, closure, big_bodies,
                                  vmap_twice, jvp_twice, grad_twice, same_name,
                                  statics_and_constants, checkify_inside, dead_code,
                                  outer_jit, effects, refs, local_refs, symbolic,
                                  remat_policies, donated, two_donations]}


def main():
    import types
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.experimental import checkify
    from jax.ad_checkpoint import print_saved_residuals
    J = types.SimpleNamespace(jax=jax, jnp=jnp, lax=lax, checkify=checkify,
                              print_saved_residuals=print_saved_residuals)
    out = {"jax": jax.__version__, "cases": {n: c(J) for n, c in CASES.items()}}
    (HERE / "jit_call.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
