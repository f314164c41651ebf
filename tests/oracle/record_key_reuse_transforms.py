"""JAX 0.10.2's key-reuse verdicts (`jax.debug_key_reuse(True)`) on keys that go
through every transformation and control-flow entry (issue 13): a key passed as an
operand of an eager `cond` / `switch` / `scan` / `fori_loop` / `while_loop` / `map`
and consumed inside, then used again; eager `grad`, `vjp`, `jacrev`, `value_and_grad`,
`jvp`, `vmap`, `checkpoint`, `custom_jvp` of functions that consume a key they close
over or are given, called more than once; and programs JAX accepts (no false
positive: a loop carrying fresh keys, `fold_in`, `clone`, `key_data`, a branch that
does not consume its key operand); and keys with refs and custom derivatives: a key an
eager `cond` / `scan` / `fori_loop` / `while_loop` / `jit` returns unchanged used with
the original, `grad` / `value_and_grad` / `jit(grad)` of `custom_jvp` / `custom_vjp`
functions consuming a key argument, a `custom_vjp` bwd consuming a key it closes over,
a key carried through a differentiated `scan` calling a `custom_vjp`, a key and a
`Ref` from outside in one jitted function; an eager key a transformed function closes
over and passes to a `custom_jvp` / `checkpoint` function or an inner `jit`.

`CASES` maps a name to a function of a namespace `J` (`J.jax`, `J.lax`, `J.jnp`) that
runs one program under the checker; recorded: "ok", or the name of the error's class.
Run with JAX 0.10.2: `/work/jaxref/bin/python tests/oracle/record_key_reuse_transforms.py`
writes key_reuse_transforms.json; `tests/test_key_reuse_transforms.py` runs the same
cases on astjax."""
import json
from pathlib import Path

from record_key_reuse_eager import verdict

HERE = Path(__file__).resolve().parent


def _key(J):
    return J.jax.random.key(0)


def _normal(J):
    return J.jax.random.normal


# ---------------------------------------------- a key operand of eager control flow

def cond_operand_then_eager(J):
    k = _key(J)
    J.lax.cond(True, lambda k: _normal(J)(k), lambda k: 0.0, k)
    return _normal(J)(k)


def cond_operand_other_branch_then_eager(J):
    k = _key(J)
    J.lax.cond(False, lambda k: _normal(J)(k), lambda k: 0.0, k)
    return _normal(J)(k)


def cond_operand_unused_then_eager(J):
    k = _key(J)
    J.lax.cond(True, lambda k: 1.0, lambda k: 0.0, k)
    return _normal(J)(k)


def switch_operand_then_eager(J):
    k = _key(J)
    J.lax.switch(1, [lambda k: 0.0, lambda k: _normal(J)(k)], k)
    return _normal(J)(k)


def cond_operand_consumed_before(J):
    k = _key(J)
    _normal(J)(k)
    return J.lax.cond(True, lambda k: _normal(J)(k), lambda k: 0.0, k)


def scan_carry_then_eager(J):
    k = _key(J)

    def body(c, _):
        c, sub = J.jax.random.split(c)
        return c, _normal(J)(sub)
    J.lax.scan(body, k, None, length=2)
    return _normal(J)(k)


def scan_carry_result_used(J):
    def body(c, _):
        c, sub = J.jax.random.split(c)
        return c, _normal(J)(sub)
    k, _ = J.lax.scan(body, _key(J), None, length=2)
    return _normal(J)(k)


def scan_xs_then_eager(J):
    ks = J.jax.random.split(_key(J), 3)
    J.lax.scan(lambda c, k: (c + _normal(J)(k), None), 0.0, ks)
    return _normal(J)(ks[0])


def map_xs_then_eager(J):
    ks = J.jax.random.split(_key(J), 3)
    J.lax.map(_normal(J), ks)
    return _normal(J)(ks[1])


def fori_carry_then_eager(J):
    k = _key(J)
    J.lax.fori_loop(0, 2, lambda i, k: J.jax.random.split(k)[0], k)
    return _normal(J)(k)


def fori_carry_result_used(J):
    k = J.lax.fori_loop(0, 2, lambda i, k: J.jax.random.split(k)[0], _key(J))
    return _normal(J)(k)


def while_carry_then_eager(J):
    k = _key(J)

    def body(c):
        i, k = c
        return i + 1, J.jax.random.split(k)[0]
    J.lax.while_loop(lambda c: c[0] < 2, body, (0, k))
    return _normal(J)(k)



def scan_forwarded_carry_both_used(J):
    k = _key(J)
    out, _ = J.lax.scan(lambda c, _: (c, None), k, None, length=2)
    return _normal(J)(out) + _normal(J)(k)


def cond_forwarded_both_used(J):
    k = _key(J)
    out = J.lax.cond(True, lambda k: k, lambda k: k, k)
    return _normal(J)(out) + _normal(J)(k)


def cond_operand_clone_then_original(J):
    k = _key(J)
    J.lax.cond(True, lambda k: _normal(J)(k), lambda k: 0.0, J.jax.random.clone(k))
    return _normal(J)(k)


def cond_closed_then_operand(J):
    k = _key(J)
    J.lax.cond(True, lambda: _normal(J)(k), lambda: 0.0)
    return J.lax.cond(True, lambda k: _normal(J)(k), lambda k: 0.0, k)


def jit_cond_operand_then_eager(J):
    k = _key(J)
    J.jax.jit(lambda k: J.lax.cond(True, lambda k: _normal(J)(k), lambda k: 0.0, k))(k)
    return _normal(J)(k)


# ------------------------------------------------ eager transformations, called twice

def _consumer(J, k):
    return lambda x: x * _normal(J)(k)



def _twice(g):
    g(1.0)
    return g(2.0)


def grad_closed_twice(J):
    return _twice(J.jax.grad(_consumer(J, _key(J))))


def grad_closed_then_eager(J):
    k = _key(J)
    J.jax.grad(_consumer(J, k))(1.0)
    return _normal(J)(k)


def value_and_grad_closed_twice(J):
    return _twice(J.jax.value_and_grad(_consumer(J, _key(J))))


def vjp_closed_twice(J):
    f = _consumer(J, _key(J))
    J.jax.vjp(f, 1.0)
    return J.jax.vjp(f, 2.0)


def vjp_pullback_twice(J):
    _, pull = J.jax.vjp(_consumer(J, _key(J)), 1.0)
    pull(1.0)
    return pull(2.0)


def jacrev_closed_twice(J):
    return _twice(J.jax.jacrev(_consumer(J, _key(J))))


def jvp_closed_twice(J):
    f = _consumer(J, _key(J))
    J.jax.jvp(f, (1.0,), (1.0,))
    return J.jax.jvp(f, (2.0,), (1.0,))






def grad_key_argument_twice(J):
    g = J.jax.grad(lambda x, k: x * _normal(J)(k))
    k = _key(J)
    g(1.0, k)
    return g(2.0, k)


def grad_key_argument_then_eager(J):
    k = _key(J)
    J.jax.grad(lambda x, k: x * _normal(J)(k))(1.0, k)
    return _normal(J)(k)


def grad_fresh_keys(J):
    g = J.jax.grad(lambda x, k: x * _normal(J)(k))
    k1, k2 = J.jax.random.split(_key(J))
    g(1.0, k1)
    return g(2.0, k2)



def vmap_closed_twice(J):
    f = J.jax.vmap(_consumer(J, _key(J)))
    f(J.jnp.arange(3.0))
    return f(J.jnp.arange(3.0))


def vmap_keys_then_eager(J):
    ks = J.jax.random.split(_key(J), 3)
    J.jax.vmap(_normal(J))(ks)
    return _normal(J)(ks[2])


def vmap_unmapped_key_then_eager(J):
    k = _key(J)
    J.jax.vmap(lambda x, k: x + _normal(J)(k), in_axes=(0, None))(J.jnp.arange(3.0), k)
    return _normal(J)(k)


def vmap_fold_in_keys(J):
    k = _key(J)
    return J.jax.vmap(lambda i: _normal(J)(J.jax.random.fold_in(k, i)))(J.jnp.arange(3))


def custom_jvp_key_argument_then_eager(J):
    @J.jax.custom_jvp
    def f(x, k):
        return x * _normal(J)(k)

    f.defjvp(lambda p, t: (f(*p), t[0] * 2.0))
    k = _key(J)
    J.jax.grad(f)(1.0, k)
    return _normal(J)(k)


def checkpoint_key_argument_then_eager(J):
    k = _key(J)
    J.jax.grad(J.jax.checkpoint(lambda x, k: x * _normal(J)(k)))(1.0, k)
    return _normal(J)(k)


def jvp_key_argument_then_eager(J):
    k = _key(J)
    J.jax.jvp(lambda x: x * _normal(J)(k), (1.0,), (1.0,))
    return _normal(J)(k)


# ----------------------------------------------------------- accepted programs

def clone_then_both(J):
    k = _key(J)
    k2 = J.jax.random.clone(k)
    _normal(J)(k2)
    return _normal(J)(k)


def key_data_then_normal(J):
    k = _key(J)
    J.jax.random.key_data(k)
    return _normal(J)(k)




# ------------------------------------- keys, refs and custom derivatives together


def fori_forwarded_both_used(J):
    k = _key(J)
    out = J.lax.fori_loop(0, 2, lambda i, k: k, k)
    return _normal(J)(out) + _normal(J)(k)


def scan_xs_forwarded_both_used(J):
    ks = J.jax.random.split(_key(J), 2)
    _, ys = J.lax.scan(lambda c, k: (c, k), 0.0, ks)
    return _normal(J)(ys[0]) + _normal(J)(ks[0])


def while_forwarded_both_used(J):
    k = _key(J)
    _, out = J.lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1]), (0, k))
    return _normal(J)(out) + _normal(J)(k)


def jit_identity_both_used(J):
    k = _key(J)
    out = J.jax.jit(lambda k: k)(k)
    return _normal(J)(out) + _normal(J)(k)


def jit_cond_forwarded_both_used(J):
    def f(k):
        out = J.lax.cond(True, lambda k: k, lambda k: k, k)
        return _normal(J)(out) + _normal(J)(k)
    return J.jax.jit(f)(_key(J))


def _custom_jvp_consumer(J):
    @J.jax.custom_jvp
    def f(x, k):
        return x * _normal(J)(k)

    f.defjvp(lambda p, t: (f(*p), t[0] * 2.0))
    return f


def custom_jvp_jit_grad_then_eager(J):
    k = _key(J)
    J.jax.jit(J.jax.grad(_custom_jvp_consumer(J)))(1.0, k)
    return _normal(J)(k)


def custom_jvp_value_and_grad_then_eager(J):
    k = _key(J)
    J.jax.value_and_grad(_custom_jvp_consumer(J))(1.0, k)
    return _normal(J)(k)


def _custom_vjp_consumer(J):
    @J.jax.custom_vjp
    def f(x, k):
        return x * _normal(J)(k)

    f.defvjp(lambda x, k: (f(x, k), None), lambda _, g: (g * 2.0, None))
    return f


def custom_vjp_key_argument_then_eager(J):
    k = _key(J)
    J.jax.grad(_custom_vjp_consumer(J))(1.0, k)
    return _normal(J)(k)


def custom_vjp_fresh_keys(J):
    g = J.jax.grad(_custom_vjp_consumer(J))
    k1, k2 = J.jax.random.split(_key(J))
    g(1.0, k1)
    return g(2.0, k2)


def custom_vjp_bwd_consumes_closed_twice(J):
    k = _key(J)

    @J.jax.custom_vjp
    def f(x):
        return x * 2.0

    f.defvjp(lambda x: (x * 2.0, None), lambda _, g: (g * _normal(J)(k),))
    return _twice(J.jax.grad(f))


def scan_key_carry_custom_vjp_grad_ok(J):
    @J.jax.custom_vjp
    def clip(x):
        return x

    clip.defvjp(lambda x: (x, None), lambda _, g: (J.jnp.clip(g, -1.0, 1.0),))

    def loss(x, key):
        def body(c, _):
            k, acc = c
            k, s = J.jax.random.split(k)
            return (k, acc + clip(x * _normal(J)(s))), None
        return J.lax.scan(body, (key, 0.0), None, length=3)[0][1]
    return J.jax.grad(loss)(1.0, _key(J))


def vmap_custom_jvp_keys_then_eager(J):
    ks = J.jax.random.split(_key(J), 2)
    J.jax.vmap(_custom_jvp_consumer(J))(J.jnp.ones(2), ks)
    return _normal(J)(ks[0])


def ref_and_key_in_jit_ok(J):
    r = J.jax.new_ref(J.jnp.float32(0.0))

    def f(k):
        k1, k2 = J.jax.random.split(k)
        r[...] += _normal(J)(k1)
        return _normal(J)(k2)
    return J.jax.jit(f)(_key(J))


def ref_and_key_in_jit_reuse(J):
    r = J.jax.new_ref(J.jnp.float32(0.0))

    def f(k):
        r[...] += _normal(J)(k)
        return _normal(J)(k)
    return J.jax.jit(f)(_key(J))


# ---- an eager key a transformed function closes over and passes to a staged call (a
# custom_jvp / checkpoint function, an inner jit): consumed as JAX evaluates the call

def _two_outputs(J, rule_calls_f=True):
    """custom_jvp f(x, k) -> (x * normal(k), 3x); its rule's primal part calls f, or
    computes it again."""
    @J.jax.custom_jvp
    def f(x, k):
        return x * _normal(J)(k), x * 3.0

    def rule(p, t):
        out = f(*p) if rule_calls_f else (p[0] * _normal(J)(p[1]), p[0] * 3.0)
        return out, (t[0] * 2.0, t[0] * 3.0)
    f.defjvp(rule)
    return f


def custom_jvp_closed_key_unused_output_grad_then_eager(J):
    k, f = _key(J), _two_outputs(J)
    J.jax.grad(lambda x: f(x, k)[1])(1.0)
    return _normal(J)(k)


def custom_jvp_closed_key_rule_primal_unused_grad_then_eager(J):
    k, f = _key(J), _two_outputs(J, rule_calls_f=False)
    J.jax.grad(lambda x: f(x, k)[1])(1.0)
    return _normal(J)(k)


def custom_jvp_closed_key_jit_grad_then_eager(J):
    k, f = _key(J), _two_outputs(J, rule_calls_f=False)
    J.jax.jit(J.jax.grad(lambda x: f(x, k)[1]))(1.0)
    return _normal(J)(k)


def custom_jvp_closed_key_jvp_then_eager(J):
    k, f = _key(J), _custom_jvp_consumer(J)
    J.jax.jvp(lambda x: f(x, k), (1.0,), (1.0,))
    return _normal(J)(k)


def custom_jvp_closed_key_result_unused_grad_then_eager(J):
    k, f = _key(J), _custom_jvp_consumer(J)

    def g(x):
        f(x, k)
        return x * 2.0
    J.jax.grad(g)(1.0)
    return _normal(J)(k)


def custom_jvp_closed_key_jit_then_eager(J):
    k, f = _key(J), _custom_jvp_consumer(J)
    J.jax.jit(lambda x: f(x, k))(1.0)
    return _normal(J)(k)


def custom_jvp_closed_key_vmap_then_eager(J):
    k, f = _key(J), _custom_jvp_consumer(J)
    J.jax.vmap(lambda x: f(x, k))(J.jnp.ones(2))
    return _normal(J)(k)


def checkpoint_closed_key_argument_grad_then_eager(J):
    k = _key(J)
    J.jax.grad(lambda x: J.jax.checkpoint(lambda y, kk: y * _normal(J)(kk))(x, k))(1.0)
    return _normal(J)(k)


def inner_jit_closed_key_argument_jvp_then_eager(J):
    k = _key(J)
    J.jax.jvp(lambda x: J.jax.jit(lambda y, kk: y * _normal(J)(kk))(x, k), (1.0,), (1.0,))
    return _normal(J)(k)


def custom_jvp_closed_key_grad_twice(J):
    k, f = _key(J), _custom_jvp_consumer(J)
    J.jax.grad(lambda x: f(x, k))(1.0)
    return J.jax.grad(lambda x: f(x, k))(2.0)


def custom_jvp_closed_key_grad_ok(J):
    k, f = _key(J), _custom_jvp_consumer(J)
    k1, k2 = J.jax.random.split(k)
    return J.jax.grad(lambda x: f(x, k1))(1.0) + _normal(J)(k2)


def custom_jvp_closed_fold_in_grad_twice_ok(J):
    k = _key(J)

    @J.jax.custom_jvp
    def f(x, k):
        return x * J.jax.random.key_data(J.jax.random.fold_in(k, 1)).sum()
    f.defjvp(lambda p, t: (f(*p), t[0]))
    J.jax.grad(lambda x: f(x, k))(1.0)
    J.jax.grad(lambda x: f(x, k))(1.0)
    return _normal(J)(k)


def custom_jvp_closed_clone_grad_then_original_ok(J):
    k, f = _key(J), _custom_jvp_consumer(J)
    J.jax.grad(lambda x: f(x, J.jax.random.clone(k)))(1.0)
    return _normal(J)(k)


CASES = {f.__name__: f for f in [
    cond_operand_then_eager, cond_operand_other_branch_then_eager,
    cond_operand_unused_then_eager, switch_operand_then_eager, cond_operand_consumed_before,
    scan_carry_then_eager, scan_carry_result_used, scan_xs_then_eager, map_xs_then_eager,
    fori_carry_then_eager, fori_carry_result_used, while_carry_then_eager,
    scan_forwarded_carry_both_used, cond_forwarded_both_used,
    cond_operand_clone_then_original, cond_closed_then_operand, jit_cond_operand_then_eager,
    grad_closed_twice, grad_closed_then_eager, value_and_grad_closed_twice,
    vjp_closed_twice, vjp_pullback_twice, jacrev_closed_twice, jvp_closed_twice,
    grad_key_argument_twice, grad_key_argument_then_eager, grad_fresh_keys,
    vmap_closed_twice, vmap_keys_then_eager, vmap_unmapped_key_then_eager, vmap_fold_in_keys,
    custom_jvp_key_argument_then_eager, checkpoint_key_argument_then_eager,
    jvp_key_argument_then_eager, clone_then_both, key_data_then_normal,
    fori_forwarded_both_used, scan_xs_forwarded_both_used, while_forwarded_both_used,
    jit_identity_both_used, jit_cond_forwarded_both_used, custom_jvp_jit_grad_then_eager,
    custom_jvp_value_and_grad_then_eager, custom_vjp_key_argument_then_eager,
    custom_vjp_fresh_keys, custom_vjp_bwd_consumes_closed_twice,
    scan_key_carry_custom_vjp_grad_ok, vmap_custom_jvp_keys_then_eager, ref_and_key_in_jit_ok,
    ref_and_key_in_jit_reuse, custom_jvp_closed_key_unused_output_grad_then_eager,
    custom_jvp_closed_key_rule_primal_unused_grad_then_eager,
    custom_jvp_closed_key_jit_grad_then_eager, custom_jvp_closed_key_jvp_then_eager,
    custom_jvp_closed_key_result_unused_grad_then_eager, custom_jvp_closed_key_jit_then_eager,
    custom_jvp_closed_key_vmap_then_eager, checkpoint_closed_key_argument_grad_then_eager,
    inner_jit_closed_key_argument_jvp_then_eager, custom_jvp_closed_key_grad_twice,
    custom_jvp_closed_key_grad_ok, custom_jvp_closed_fold_in_grad_twice_ok,
    custom_jvp_closed_clone_grad_then_original_ok]}


def main():
    import types
    import jax
    import jax.numpy as jnp
    from jax import lax
    J = types.SimpleNamespace(jax=jax, jnp=jnp, lax=lax)
    out = {"jax": jax.__version__, "cases": {n: verdict(c, J) for n, c in CASES.items()}}
    (HERE / "key_reuse_transforms.json").write_text(json.dumps(out, indent=1, sort_keys=True)
                                                    + "\n")


if __name__ == "__main__":
    main()
