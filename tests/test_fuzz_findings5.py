"""Differences the program fuzzer's third construct family (`--enable constructs3`,
seeds 9300000..) found on main, each a minimal program checked against plain Python
with NumPy (the reference the fuzzer uses)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def _max_of_filtered_generator(x, w):
    # seed 9300001: `max(gen)` / `min(list)` of staged scalars was a
    # TracerBoolConversionError where `max(a, b)` is an elementwise maximum by design
    t = max(jnp.sum(r) * 0.1 for r in [w, x, w] if r.shape[0] > 2)
    u = min([jnp.sum(r) * 0.1 for r in [x, w]])
    v = max(iter([x[0]])) + min(r for r in x)   # one item: itself; an array's rows
    return jnp.tanh(x * t + u + v)


def _reference(x, w):
    t = max(np.sum(r) * 0.1 for r in [w, x, w] if r.shape[0] > 2)
    u = min([np.sum(r) * 0.1 for r in [x, w]])
    v = max(iter([x[0]])) + min(r for r in x)
    return np.tanh(x * t + u + v)


X = np.array([0.3, -1.1, 0.7])
W = np.array([-0.2, 0.9, 0.4])


@pytest.mark.parametrize("wrap", [lambda f: f, astjax.jit])
def test_builtin_max_min_of_one_iterable_of_staged_values(wrap):
    np.testing.assert_allclose(np.asarray(wrap(_max_of_filtered_generator)(X, W)),
                               _reference(X, W), rtol=1e-6)


def test_builtin_max_of_iterable_differentiates_and_batches():
    loss = lambda x, w: jnp.sum(_max_of_filtered_generator(x, w))   # noqa: E731
    g = astjax.grad(loss)(X, W)
    h = 1e-6
    fd = [(np.sum(_reference(X + h * e, W)) - np.sum(_reference(X - h * e, W))) / (2 * h)
          for e in np.eye(3)]
    np.testing.assert_allclose(np.asarray(g), fd, rtol=1e-4, atol=1e-6)
    xb = np.stack([X, W, X * 0.5])
    got = astjax.vmap(_max_of_filtered_generator, in_axes=(0, None))(xb, W)
    np.testing.assert_allclose(np.asarray(got), [_reference(r, W) for r in xb], rtol=1e-6)


def _max_of_vectors(x):
    return max([x, x * 2])


def _min_of_empty(x):
    return min(r for r in [] if r) + x


def test_builtin_max_of_iterable_keeps_pythons_errors():
    # Python compares the items with `<`: a vector's truth value is ambiguous (NumPy's
    # ValueError), an empty iterable is Python's own ValueError; both located
    with pytest.raises(astjax.errors.AmbiguousTruthValueError, match="max"):
        astjax.jit(_max_of_vectors)(X)
    with pytest.raises(ValueError, match="empty") as e:
        astjax.jit(_min_of_empty)(X)
    assert isinstance(e.value, astjax.errors.AstjaxError) and e.value.loc.line is not None


def _returns_a_deleted_temporary(x):
    for i in range(3):
        t = x * i
        del t
    return x, t


def _returns_a_loop_binding(x, n):
    for i in range(n):
        t = x * (i + 1.0)
    return x, t


def test_return_of_a_name_a_loop_deleted_is_located_at_the_return():
    # the loop left `t` an `Undefined`, which `return` handed to `jit`: the NameError was
    # located at the jit call, outside the user's code
    with pytest.raises(NameError, match="'t'") as e:
        astjax.jit(_returns_a_deleted_temporary)(X)
    assert e.value.loc.line == _returns_a_deleted_temporary.__code__.co_firstlineno + 4


def test_return_of_a_name_a_staged_loop_binds_is_unchanged():
    x, t = astjax.jit(_returns_a_loop_binding)(X, 2)
    np.testing.assert_allclose(np.asarray(t), X * 2.0, rtol=1e-6)
    g = astjax.grad(lambda x, n: jnp.sum(_returns_a_loop_binding(x, n)[1]))(X, 3)
    np.testing.assert_allclose(np.asarray(g), [3.0, 3.0, 3.0], rtol=1e-6)


def _bound_unless_raised_in_a_loop(x, p):
    # seeds 9300058, 9300094: `w` is bound on every path of the static `if` that does
    # not raise; liveness let the `raise` fall through, so `w` was live across the
    # trips and the staged `if` had to carry it from its else branch, where it is not
    # bound (a located UndefinedVariableError for a valid program)
    for k in range(2):
        if jnp.sum(x) > 0.3:
            if isinstance(p, dict):
                w = p["w"]
            elif isinstance(p, tuple):
                w = p[0]
            else:
                raise TypeError(f"p is a {type(p).__name__}")
            x = x * 0.5 + w * 0.5
        else:
            x = jnp.tanh(x - 1.0)
    k = 0
    while k < 2:
        k += 1
        if x[-1] > 0.3:
            x = jnp.sin(x)
        else:
            if not isinstance(p, dict):
                raise ValueError(f"bad p: {p!r}")
            v = p["w"]
            x = x + v * 0.1
    return x


def _bound_unless_raised_reference(x, p):
    for k in range(2):
        if np.sum(x) > 0.3:
            x = x * 0.5 + p["w"] * 0.5
        else:
            x = np.tanh(x - 1.0)
    for k in range(2):
        x = np.sin(x) if x[-1] > 0.3 else x + p["w"] * 0.1
    return x


@pytest.mark.parametrize("x", [X, W * 2.0, -X])
def test_a_name_bound_on_every_path_that_does_not_raise_is_not_carried(x):
    p = {"w": W}
    want = _bound_unless_raised_reference(x, p)
    np.testing.assert_allclose(np.asarray(astjax.jit(_bound_unless_raised_in_a_loop)(x, p)),
                               want, rtol=1e-6)
    got = astjax.vmap(_bound_unless_raised_in_a_loop, in_axes=(0, None))(np.stack([x, x]), p)
    np.testing.assert_allclose(np.asarray(got[1]), want, rtol=1e-6)
    g = astjax.grad(lambda x: jnp.sum(_bound_unless_raised_in_a_loop(x, p)))(x)
    assert np.all(np.isfinite(np.asarray(g)))


@pytest.mark.parametrize("seed", [9300001, 9300058, 9300094])
def test_constructs3_finding_programs(seed):
    # the whole generated programs of the findings above, under every check
    from fuzz.checks import run_program
    from fuzz.gen import generate
    from fuzz.gen_constructs3 import CONSTRUCTS3
    case = run_program(generate(seed, enabled=CONSTRUCTS3))
    assert case.status is None, (seed, case.status, getattr(case, "invalid_reason", ""))
    bad = case.failures()
    assert not bad, "\n".join(f"seed {seed} {c}: {r[2][:400]}" for c, r in bad.items())
