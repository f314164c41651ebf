"""The order in which JAX 0.10.2 runs the Python code of control-flow and custom-rule
functions while tracing (what `print` in each one shows), and a recorder of it (see
README.md).

`CASES` maps a name to a function of a namespace `J` (`J.jax`, `J.lax`, `J.jnp`) that
runs one program; every function the program hands to JAX prints its tag when it is
traced. Recorded per case: the printed lines, in order. Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_trace_order.py` writes trace_order.json;
`tests/test_trace_order.py` runs the same cases on astjax."""
import contextlib
import io
import json
from pathlib import Path


def _tag(name, value):
    print(name)
    return value


def cond_jit(J):
    def f(x):
        return J.lax.cond(x > 0, lambda v: _tag("true", v + 1.0),
                          lambda v: _tag("false", v - 1.0), x)
    return J.jax.jit(f)(1.0)


def cond_eager(J):
    return J.lax.cond(True, lambda v: _tag("true", v), lambda v: _tag("false", -v), 2.0)


def cond_nested(J):
    def f(x):
        return J.lax.cond(
            x > 0,
            lambda v: J.lax.cond(v > 1, lambda u: _tag("tt", u), lambda u: _tag("tf", u), v),
            lambda v: J.lax.cond(v > -1, lambda u: _tag("ft", u), lambda u: _tag("ff", u), v),
            x)
    return J.jax.jit(f)(1.0)


def cond_chain(J):
    """The `lax.cond` spelling of `if a: ... elif b: ... else: ...`."""
    def f(x):
        return J.lax.cond(x > 0, lambda v: _tag("if", v + 1.0),
                          lambda v: J.lax.cond(v < -1, lambda u: _tag("elif", u - 1.0),
                                               lambda u: _tag("else", u), v), x)
    return J.jax.jit(f)(1.0)


def cond_grad(J):
    def f(x):
        return J.lax.cond(x > 0, lambda v: _tag("true", v * v), lambda v: _tag("false", -v), x)
    return J.jax.grad(f)(1.0)


def cond_vmap(J):
    def f(x):
        return J.lax.cond(x > 0, lambda v: _tag("true", v * 2.0),
                          lambda v: _tag("false", v - 1.0), x)
    return J.jax.vmap(f)(J.jnp.arange(-2.0, 2.0))


def switch_jit(J):
    def f(i, x):
        return J.lax.switch(i, [lambda v: _tag("b0", v), lambda v: _tag("b1", v + 1.0),
                                lambda v: _tag("b2", v + 2.0)], x)
    return J.jax.jit(f)(1, 1.0)


def switch_eager(J):
    return J.lax.switch(2, [lambda v: _tag("b0", v), lambda v: _tag("b1", v * 2.0),
                            lambda v: _tag("b2", v * 3.0), lambda v: _tag("b3", v * 4.0)], 1.0)


def while_jit(J):
    def f(x):
        return J.lax.while_loop(lambda c: _tag("cond", c < 10.0),
                                lambda c: _tag("body", c + 1.0), x)
    return J.jax.jit(f)(1.0)


def while_weak_carry(J):
    """A Python-int initial value that the body makes a float: traced twice."""
    def f(x):
        return J.lax.while_loop(lambda c: _tag("cond", c[0] < 10),
                                lambda c: _tag("body", (c[0] + 1, c[1] + 0.5)), (x, 0))
    return J.jax.jit(f)(1)


def while_in_cond(J):
    def f(x):
        return J.lax.cond(
            x > 0,
            lambda v: J.lax.while_loop(lambda c: _tag("t.cond", c < 5.0),
                                       lambda c: _tag("t.body", c + 1.0), v),
            lambda v: J.lax.while_loop(lambda c: _tag("f.cond", c > -5.0),
                                       lambda c: _tag("f.body", c - 1.0), v), x)
    return J.jax.jit(f)(1.0)


def scan_jit(J):
    def f(x):
        return J.lax.scan(lambda c, y: _tag("body", (c + y, c)), x, J.jnp.arange(3.0))
    return J.jax.jit(f)(1.0)


def scan_weak_carry(J):
    def f(x):
        return J.lax.scan(lambda c, y: _tag("body", (c + y * x, c)), 0, J.jnp.arange(3.0))
    return J.jax.jit(f)(1.0)


def fori_static(J):
    def f(x):
        return J.lax.fori_loop(0, 3, lambda i, c: _tag("body", c + i), x)
    return J.jax.jit(f)(1.0)


def fori_staged(J):
    def f(x, n):
        return J.lax.fori_loop(0, n, lambda i, c: _tag("body", c + i), x)
    return J.jax.jit(f)(1.0, 3)


def _custom_jvp_sin(J):
    @J.jax.custom_jvp
    def g(x):
        return _tag("primal", J.jnp.sin(x))

    @g.defjvp
    def g_jvp(primals, tangents):
        (x,), (dx,) = primals, tangents
        return _tag("jvp", (J.jnp.sin(x), J.jnp.cos(x) * dx))
    return g


def custom_jvp_jit(J):
    return J.jax.jit(_custom_jvp_sin(J))(1.0)


def custom_jvp_grad(J):
    return J.jax.jit(J.jax.grad(_custom_jvp_sin(J)))(1.0)


def custom_jvp_jvp(J):
    g = _custom_jvp_sin(J)
    return J.jax.jit(lambda x: J.jax.jvp(g, (x,), (1.0,)))(1.0)


def _custom_vjp_sin(J):
    @J.jax.custom_vjp
    def h(x):
        return _tag("primal", J.jnp.sin(x))

    def h_fwd(x):
        return _tag("fwd", (J.jnp.sin(x), x))

    def h_bwd(r, g):
        return _tag("bwd", (J.jnp.cos(r) * g,))
    h.defvjp(h_fwd, h_bwd)
    return h


def custom_vjp_jit(J):
    return J.jax.jit(_custom_vjp_sin(J))(1.0)


def custom_vjp_grad(J):
    return J.jax.jit(J.jax.grad(_custom_vjp_sin(J)))(1.0)


def custom_vjp_grad_eager(J):
    return J.jax.grad(_custom_vjp_sin(J))(1.0)


def custom_vjp_vjp(J):
    h = _custom_vjp_sin(J)
    return J.jax.jit(lambda x: J.jax.vjp(h, x)[1](1.0))(1.0)


def select_operands(J):
    def f(x):
        return J.lax.select(x > 0, _tag("a", x), _tag("b", -x))
    return J.jax.jit(f)(1.0)


CASES = {f.__name__: f for f in [
    cond_jit, cond_eager, cond_nested, cond_chain, cond_grad, cond_vmap, switch_jit,
    switch_eager, while_jit, while_weak_carry, while_in_cond, scan_jit, scan_weak_carry,
    fori_static, fori_staged, custom_jvp_jit, custom_jvp_grad, custom_jvp_jvp,
    custom_vjp_jit, custom_vjp_grad, custom_vjp_grad_eager, custom_vjp_vjp,
    select_operands]}


def printed(case, J):
    """The lines `case` prints while it runs on the namespace `J`."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        case(J)
    return out.getvalue().splitlines()


def main():
    import types

    import jax
    import jax.numpy as jnp
    from jax import lax
    J = types.SimpleNamespace(jax=jax, lax=lax, jnp=jnp)
    rows = {name: printed(case, J) for name, case in CASES.items()}
    path = Path(__file__).with_name("trace_order.json")
    path.write_text(json.dumps({"jax": jax.__version__, "cases": rows}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
