"""The key-reuse checker's cases beyond straight-line code (`random/key_reuse.py`): a
key consumed inside `jit` and then outside, loop bodies (`scan`, `fori_loop`,
`while_loop`, a Python `for` converted to a loop) consuming a key they close over or a
key carry they carry on, keys consumed before a loop or a `cond`, `cond` branches
consuming differently, keys inside pytrees, `split` results and their slices reused.

Each case's verdict is jax 0.10.2's (`jax.debug_key_reuse(True)`, the same programs run
with `/work/jaxref/bin/python`; JAX's first message line noted). A reuse is a
`KeyReuseError` (a `TypeError`) located at the line marked `# <- reuse`: the second
use, or for a loop the use that every trip repeats."""
import inspect

import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import lax, random
from astjax.errors import AstjaxError, KeyReuseError


@pytest.fixture(autouse=True)
def _checker_on():
    with jax.debug_key_reuse(True):
        yield


def jit_then_eager():       # JAX: Previously-consumed key passed to jit-compiled function
    k = random.key(0)
    jax.jit(random.normal)(k)
    random.normal(k)  # <- reuse


def jit_then_jit():         # JAX: Previously-consumed key passed to jit-compiled function
    k = random.key(0)
    f = jax.jit(lambda k: random.normal(k))
    f(k)
    f(k)  # <- reuse


def eager_then_jit():       # JAX: Previously-consumed key passed to jit-compiled function
    k = random.key(0)
    random.normal(k)
    jax.jit(lambda k: random.normal(k))(k)  # <- reuse


def jit_split_then_eager():  # JAX: Previously-consumed key passed to jit-compiled function
    k = random.key(0)
    ks = jax.jit(random.split)(k)
    random.normal(ks[0])
    random.normal(k)  # <- reuse


def pytree_jit_then_eager():  # JAX: Previously-consumed key passed to jit-compiled function
    d = {"a": random.key(0), "b": random.key(1)}
    jax.jit(lambda d: random.normal(d["a"]))(d)
    random.normal(d["b"])
    random.normal(d["a"])  # <- reuse


def jit_key_data_then_eager():   # JAX: fine (key_data consumes nothing)
    k = random.key(0)
    jax.jit(lambda k: random.key_data(k))(k)
    random.normal(k)


def jit_returns_key():      # JAX: fine (the result is the argument, unconsumed)
    k = random.key(0)
    random.normal(jax.jit(lambda k: k)(k))


def scan_closes_over_key():   # JAX: scan body function leads to key reuse ...
    def f(k):
        def body(c, _):
            return c + random.normal(k), None  # <- reuse
        return lax.scan(body, 1.0, None, length=3)[0]
    jax.jit(f)(random.key(0))


def scan_closes_over_eager_key():   # JAX: scan body function leads to key reuse ...
    k = random.key(0)

    def f(x):
        def body(c, _):
            return c + random.normal(k), None  # <- reuse
        return lax.scan(body, x, None, length=3)[0]
    jax.jit(f)(1.0)


def scan_carry_split():     # JAX: fine
    def f(k):
        def body(k, _):
            k, sub = random.split(k)
            return k, random.normal(sub)
        return lax.scan(body, k, None, length=3)
    jax.jit(f)(random.key(0))


def scan_carry_consumed_and_carried():   # JAX: scan body function leads to key reuse ...
    def f(k):
        def body(k, _):
            return k, random.normal(k)  # <- reuse
        return lax.scan(body, k, None, length=3)
    jax.jit(f)(random.key(0))


def scan_over_keys():       # JAX: fine
    jax.jit(lambda ks: lax.scan(lambda c, k: (c + random.normal(k), None), 0.0, ks)[0])(
        random.split(random.key(0), 3))


def scan_over_keys_then_one():   # JAX: In slice, argument 0 is already consumed
    def f(ks):
        s = lax.scan(lambda c, k: (c + random.normal(k), None), 0.0, ks)[0]
        return s + random.normal(ks[0])  # <- reuse
    jax.jit(f)(random.split(random.key(0), 3))


def consumed_before_scan_carry():   # JAX: In scan, argument 0 is already consumed
    def f(k):
        x = random.normal(k)

        def body(k, _):
            k, sub = random.split(k)  # <- reuse
            return k, random.normal(sub)
        return lax.scan(body, k, None, length=3), x
    jax.jit(f)(random.key(0))


def fori_closes_over_key():   # JAX: scan body function leads to key reuse ...
    jax.jit(lambda k: lax.fori_loop(0, 3, lambda i, c: c + random.normal(k), 0.0))(  # <- reuse
        random.key(0))


def fori_fold_in():         # JAX: fine
    jax.jit(lambda k: lax.fori_loop(0, 3, lambda i, c: c + random.normal(random.fold_in(k, i)),
                                    0.0))(random.key(0))


def fori_carry_split():     # JAX: fine
    def body(i, c):
        x, k = c
        k, sub = random.split(k)
        return x + random.normal(sub), k
    jax.jit(lambda k: lax.fori_loop(0, 3, body, (0.0, k)))(random.key(0))


def fori_carry_reused():    # JAX: scan body function leads to key reuse ...
    def f(k):
        def body(i, c):
            x, k = c
            return x + random.normal(k), k  # <- reuse
        return lax.fori_loop(0, 3, body, (0.0, k))
    jax.jit(f)(random.key(0))


def consumed_before_fori_carry():   # JAX: In scan, argument 2 is already consumed
    def f(k):
        a = random.normal(k)

        def body(i, c):
            x, k = c
            k, sub = random.split(k)  # <- reuse
            return x + random.normal(sub), k
        return lax.fori_loop(0, 3, body, (a, k))
    jax.jit(f)(random.key(0))


def consumed_before_loop_fold_in():   # JAX: fine (fold_in consumes nothing)
    def f(k):
        a = random.normal(k)
        return lax.fori_loop(0, 3, lambda i, c: c + random.normal(random.fold_in(k, i)), a)
    jax.jit(f)(random.key(0))


def while_closes_over_key():   # JAX: while_loop body function leads to key reuse ...
    def f(k):
        return lax.while_loop(lambda c: c < 3,
                              lambda c: c + jnp.abs(random.normal(k)) + 1, 0.0)  # <- reuse
    jax.jit(f)(random.key(0))


def while_carry_split():    # JAX: fine
    def body(c):
        x, k = c
        k, sub = random.split(k)
        return x + jnp.abs(random.normal(sub)) + 1, k
    jax.jit(lambda k: lax.while_loop(lambda c: c[0] < 3, body, (0.0, k)))(random.key(0))


def while_carry_reused():   # JAX: while_loop body function leads to key reuse ...
    def body(c):
        x, k = c
        return x + jnp.abs(random.normal(k)) + 1, k  # <- reuse
    jax.jit(lambda k: lax.while_loop(lambda c: c[0] < 3, body, (0.0, k)))(random.key(0))


def while_cond_and_body_consume():   # JAX: while_loop cond and body functions both use ...
    def cond(c):
        x, k = c
        return random.normal(k) < x  # <- reuse

    def body(c):
        x, k = c
        k, _ = random.split(k)
        return x, k
    jax.jit(lambda k: lax.while_loop(cond, body, (0.0, k)))(random.key(0))


def python_for_closes_over_key():   # JAX (unrolled): In jit, argument 0 is already consumed
    def f(k):
        x = 0.0
        for i in range(3):
            x = x + random.normal(k)  # <- reuse
        return x
    jax.jit(f)(random.key(0))


def python_for_split():     # JAX: fine
    def f(k):
        x = 0.0
        for i in range(3):
            k, sub = random.split(k)
            x = x + random.normal(sub)
        return x
    jax.jit(f)(random.key(0))


def python_for_consumed_before():   # JAX: In random_split, argument 0 is already consumed
    def f(k):
        x = random.normal(k)
        for i in range(3):
            k, sub = random.split(k)  # <- reuse
            x = x + random.normal(sub)
        return x
    jax.jit(f)(random.key(0))


def python_for_fold_in():   # JAX: fine
    def f(k):
        x = 0.0
        for i in range(3):
            x = x + random.normal(random.fold_in(k, i))
        return x
    jax.jit(f)(random.key(0))


def cond_one_branch_then_outside():   # JAX: In jit, argument 0 is already consumed
    def f(k, p):
        return (lax.cond(p, lambda k: random.normal(k), lambda k: 0.0, k)
                + random.normal(k))  # <- reuse
    jax.jit(f)(random.key(0), True)


def cond_both_branches_consume():   # JAX: fine
    jax.jit(lambda k, p: lax.cond(p, lambda k: random.normal(k), lambda k: random.uniform(k),
                                  k))(random.key(0), True)


def consumed_then_cond_consumes():   # JAX: In cond, argument 1 is already consumed
    def f(k, p):
        a = random.normal(k)
        return lax.cond(p, lambda k: random.normal(k), lambda k: 0.0, k) + a  # <- reuse
    jax.jit(f)(random.key(0), True)


def consumed_then_cond_closure_consumes():   # JAX: In cond, argument 1 is already consumed
    def f(k, p):
        a = random.normal(k)
        return lax.cond(p, lambda: random.normal(k), lambda: 0.0) + a  # <- reuse
    jax.jit(f)(random.key(0), True)


def consumed_then_cond_reads_data():   # JAX: fine
    def f(k, p):
        a = random.normal(k)
        return lax.cond(p, lambda k: random.key_data(k).sum() * 1.0, lambda k: 0.0, k) + a
    jax.jit(f)(random.key(0), True)


def pytree_key_reused():    # JAX: In jit, argument 0 is already consumed
    jax.jit(lambda d: random.normal(d["a"]) + random.normal(d["a"]))(  # <- reuse
        {"a": random.key(0), "b": random.key(1)})


def pytree_keys_once():     # JAX: fine
    jax.jit(lambda d: random.normal(d["a"]) + random.normal(d["b"]))(
        {"a": random.key(0), "b": random.key(1)})


def split_result_reused():   # JAX: In jit, argument 0 is already consumed
    def f(k):
        k1, k2 = random.split(k)
        return random.normal(k1) + random.normal(k1)  # <- reuse
    jax.jit(f)(random.key(0))


def split_result_reused_eagerly():   # JAX: Previously-consumed key passed to ...
    k1, k2 = random.split(random.key(0))
    random.normal(k1)
    random.normal(k1)  # <- reuse


def split_slices_once():    # JAX: fine
    def f(k):
        ks = random.split(k, 3)
        return random.normal(ks[0]) + random.normal(ks[1])
    jax.jit(f)(random.key(0))


def split_slice_twice():    # JAX: In slice, argument 0 is already consumed
    def f(k):
        ks = random.split(k, 3)
        return random.normal(ks[0]) + random.normal(ks[0])  # <- reuse
    jax.jit(f)(random.key(0))


def split_slice_twice_eagerly():   # JAX: Previously-consumed key passed to slice at index 0
    ks = random.split(random.key(0), 3)
    random.normal(ks[0])
    random.normal(ks[0])  # <- reuse


def split_result_split_twice():   # JAX: In random_split, argument 0 is already consumed
    def f(k):
        k1, k2 = random.split(k)
        return random.split(k1), random.split(k1)  # <- reuse
    jax.jit(f)(random.key(0))


def vmap_key_twice():       # JAX: Previously-consumed key passed to jit-compiled function
    ks = random.split(random.key(0), 3)
    jax.vmap(lambda k: random.normal(k) + random.normal(k))(ks)  # <- reuse


def nested_jit_then_outer():   # JAX: In jit, argument 0 is already consumed
    def f(k):
        a = jax.jit(random.normal)(k)
        return a + random.normal(k)  # <- reuse
    jax.jit(f)(random.key(0))


CASES = [v for k, v in list(globals().items()) if inspect.isfunction(v)
         and v.__module__ == __name__ and not k.startswith(("_", "test"))]


def _marked_line(fn):
    lines, start = inspect.getsourcelines(fn)
    marked = [start + i for i, s in enumerate(lines) if "# <- reuse" in s]
    return marked[0] if marked else None


def test_cases_are_all_here():
    assert len(CASES) == 43
    assert sum(_marked_line(f) is not None for f in CASES) == 29


@pytest.mark.parametrize("case", CASES, ids=lambda f: f.__name__)
def test_verdict_as_jax(case):
    line = _marked_line(case)
    if line is None:
        case()
        return
    with pytest.raises(TypeError) as e:
        case()
    assert isinstance(e.value, KeyReuseError) and isinstance(e.value, AstjaxError)
    assert e.value.loc.file.endswith("test_key_reuse_more.py")
    assert e.value.loc.line == line, str(e.value)


def test_flag_off_checks_nothing():
    with jax.debug_key_reuse(False):
        for case in (jit_then_eager, scan_closes_over_key, split_slice_twice_eagerly,
                     while_carry_reused, cond_one_branch_then_outside):
            case()
