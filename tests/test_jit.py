"""`jit`: caching per signature, static arguments, pytrees, the seeds' programs,
the source front end (lambdas, nested functions, closures), plain NumPy calls on
staged values, and the dispatch fast path."""
import functools
from functools import partial

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax


def _compiles(j):
    """Number of signatures `j` has staged and compiled."""
    return len(j._cache)

# -------------------------------------------------------------------- the seeds' MLP


def predict(params, inputs):
    for W, b in params:
        outputs = jnp.dot(inputs, W) + b
        inputs = jnp.tanh(outputs)
    return outputs


def np_predict(params, inputs):
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = np.tanh(outputs)
    return outputs


def mlp_params(sizes, seed=0):
    rng = np.random.RandomState(seed)
    return [(rng.randn(m, n).astype(np.float32) * np.float32(1 / np.sqrt(m)),
             rng.randn(n).astype(np.float32) * np.float32(0.1))
            for m, n in zip(sizes[:-1], sizes[1:])]


@pytest.mark.parametrize("sizes,batch", [([784, 512, 512, 10], 128), ([3, 4, 2], 5)])
def test_seed_mlp_predict_matches_numpy(sizes, batch):
    params = mlp_params(sizes)
    x = np.random.RandomState(1).randn(batch, sizes[0]).astype(np.float32)
    out = astjax.jit(predict)(params, x)
    assert isinstance(out, astjax.Array) and out.shape == (batch, sizes[-1])
    ref = np_predict([(W.astype(np.float64), b.astype(np.float64)) for W, b in params],
                     x.astype(np.float64))
    np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-5, atol=1e-5)
    # device-resident params give the same answer and hit the same cache entry (a new
    # jit of the same function shares the first one's cache: no new signature)
    j = astjax.jit(predict)
    n = _compiles(j)
    j(params, x)
    out2 = j(astjax.device_put(params), astjax.device_put(x))
    np.testing.assert_allclose(np.asarray(out2), np.asarray(out), rtol=1e-6)
    assert _compiles(j) == n

# ------------------------------------------------------------------------- caching


def test_no_recompile_for_same_signature():
    calls = []
    j = astjax.jit(lambda x, y: x * y + 1)
    for _ in range(3):
        calls.append(np.asarray(j(np.ones(3, np.float32), np.full(3, 2, np.float32))))
    a = astjax.device_put(np.ones(3, np.float32))
    j(a, a)
    j(a, np.ones(3, np.float32))
    assert _compiles(j) == 1
    np.testing.assert_array_equal(calls[-1], [3, 3, 3])


def test_recompile_for_new_shape_dtype_weak_type():
    j = astjax.jit(lambda x: x + 1)
    j(np.ones(3, np.float32))
    j(np.ones(4, np.float32))
    assert _compiles(j) == 2
    r = j(np.ones(4, np.int32))
    assert r.dtype == np.int32 and _compiles(j) == 3
    w = j(1.0)  # a weak f32 scalar is another signature than a strong one
    s = j(np.float32(1.0))
    assert w.weak_type and not s.weak_type and _compiles(j) == 5
    # device Arrays: strong and weak avals with the same shape/dtype are told apart
    jw = j(astjax.device_put(1.0))
    js = j(astjax.device_put(np.float32(1.0)))
    assert jw.weak_type and not js.weak_type and _compiles(j) == 5


def test_fast_path_cache_is_keyed_on_aval():
    j = astjax.jit(lambda x, y: x - y)
    a3 = astjax.device_put(np.arange(3, dtype=np.float32))
    a4 = astjax.device_put(np.arange(4, dtype=np.float32))
    i3 = astjax.device_put(np.arange(3, dtype=np.int32))
    np.testing.assert_array_equal(np.asarray(j(a3, a3)), np.zeros(3))
    assert j(a4, a4).shape == (4,)
    out = j(i3, i3)
    assert out.dtype == np.int32
    out = j(a3, i3)
    assert out.dtype == np.float32
    for _ in range(3):  # second round: all from the fast path
        assert j(a3, a3).shape == (3,)
        assert j(a4, a4).shape == (4,)
        assert j(i3, i3).dtype == np.int32
    assert _compiles(j) == 4
    # results of a compiled call feed the next one directly
    y = j(j(a3, a3), a3)
    np.testing.assert_array_equal(np.asarray(y), -np.arange(3))


def test_fast_path_many_args_and_outputs():
    j = astjax.jit(lambda a, b, c: (a + b, (b * c, [c])))
    x = astjax.device_put(np.ones(2, np.float32))
    for _ in range(2):
        out = j(x, x, 2.0)
        assert isinstance(out, tuple) and isinstance(out[1][1], list)
        np.testing.assert_array_equal(np.asarray(out[1][0]), [2, 2])


def test_x64_flag_is_part_of_the_key():
    j = astjax.jit(lambda x: x + 1.5)
    x = astjax.device_put(np.ones(2, np.float32))
    assert j(x).dtype == np.float32
    try:
        astjax.config.update("jax_enable_x64", True)
        r = j(2.0)
        assert r.dtype == np.float64
        assert j(x).dtype == np.float32
    finally:
        astjax.config.update("jax_enable_x64", False)
    assert j(2.0).dtype == np.float32
    assert _compiles(j) == 4  # f32 and weak-float scalar, each with x64 off and on


def test_pytree_arguments_and_results():
    def f(d, pair, lst):
        a, b = pair
        return {"sum": d["x"] + d["y"], "prod": a * b}, [lst[0] - 1, (lst[1],)]
    j = astjax.jit(f)
    d = {"x": np.ones(2, np.float32), "y": np.full(2, 3, np.float32)}
    out = j(d, (2.0, np.float32(4.0)), [np.zeros(2, np.int32), 5])
    assert set(out[0]) == {"sum", "prod"} and isinstance(out[1], list)
    np.testing.assert_array_equal(np.asarray(out[0]["sum"]), [4, 4])
    assert float(out[0]["prod"]) == 8.0
    np.testing.assert_array_equal(np.asarray(out[1][0]), [-1, -1])
    assert isinstance(out[1][1], tuple) and int(out[1][1][0]) == 5
    j(d, (2.0, np.float32(4.0)), [np.zeros(2, np.int32), 5])
    assert _compiles(j) == 1
    j({"x": d["x"], "y": d["y"], "z": 1.0}.__class__(x=d["x"], y=d["y"]), (2.0, 3.0),
      [np.zeros(2, np.int32), 5])
    assert _compiles(j) == 2  # (2.0, 3.0) gives weak scalars: a new signature


def test_kwargs():
    j = astjax.jit(lambda x, scale=2.0: x * scale)
    assert float(j(3.0)) == 6.0
    assert float(j(3.0, scale=4.0)) == 12.0
    assert float(j(x=1.0, scale=5.0)) == 5.0

# --------------------------------------------------------------------- static args


def test_static_argnums_seed_example():
    @partial(astjax.jit, static_argnums=(1,))
    def f(x, neg):
        return -x if neg else x
    assert int(f(1, True)) == -1
    assert int(f(2, True)) == -2
    assert int(f(2, False)) == 2
    assert int(f(23, False)) == 23
    assert _compiles(f) == 2  # one per value of `neg`; same avals for x


def test_static_argnames():
    def g(x, n, mode="add"):
        for _ in range(n):
            x = x + 1 if mode == "add" else x * 2
        return x
    j = astjax.jit(g, static_argnames=("n", "mode"))
    assert float(j(1.0, n=3)) == 4.0
    assert float(j(1.0, n=3, mode="mul")) == 8.0
    assert float(j(1.0, n=3)) == 4.0
    assert _compiles(j) == 2
    j2 = astjax.jit(g, static_argnums=(1,), static_argnames="mode")
    assert float(j2(1.0, 2, mode="mul")) == 4.0


def test_static_arg_must_be_hashable():
    j = astjax.jit(lambda x, cfg: x, static_argnums=1)
    with pytest.raises(astjax.errors.ArgumentError, match="hashable"):
        j(1.0, [1, 2])


def test_staged_if_raises_concretization_without_static():
    def f(x, neg):
        return -x if neg else x
    with pytest.raises(astjax.errors.AstjaxError):
        astjax.jit(f)(1, np.bool_(True)) if False else astjax.jit(f, static_argnums=())(
            1, object())

# ----------------------------------------------------------- the front end under jit


def test_reshape_with_static_shape_arithmetic():
    @astjax.jit
    def f(x):
        return x.reshape(jnp.array(x.shape).prod())
    out = f(jnp.ones((2, 3)))
    assert out.shape == (6,)
    np.testing.assert_array_equal(np.asarray(out), np.ones(6))


def test_several_lambdas_on_one_line():
    f, g = (lambda x: x + 1), (lambda x: x * 10)
    assert float(astjax.jit(f)(1.0)) == 2.0
    assert float(astjax.jit(g)(1.0)) == 10.0
    p, q = astjax.jit(lambda x: x - 1), astjax.jit(lambda x: x / 4)
    assert (float(p(1.0)), float(q(1.0))) == (0.0, 0.25)


def test_lambda_default_from_comprehension():
    h = [astjax.jit(lambda x, k=k: x * k) for k in (2, 3)]
    assert [float(j(1.0)) for j in h] == [2.0, 3.0]


def test_nested_function_and_closure():
    scale = np.float32(3.0)
    offset = jnp.array([1.0, 2.0])

    def outer(x):
        def inner(y):
            return y * scale + offset
        return inner(x) - 1
    out = astjax.jit(outer)(np.zeros(2, np.float32))
    np.testing.assert_array_equal(np.asarray(out), [0.0, 1.0])


def make_adder(k):
    def add(x):
        return x + k
    return add


def test_closure_factory_cells():
    assert float(astjax.jit(make_adder(5.0))(1.0)) == 6.0
    assert float(astjax.jit(make_adder(7.0))(1.0)) == 8.0


def _helper(x):
    return jnp.tanh(x) * 2


def test_user_helpers_converted_recursively():
    def f(x):
        return _helper(x) + _helper(2 * x)
    cj = astjax.make_jaxpr(f)(1.0)
    assert [e.primitive.name for e in cj.jaxpr.eqns].count("tanh") == 2
    np.testing.assert_allclose(float(astjax.jit(f)(0.5)), 2 * (np.tanh(0.5) + np.tanh(1.0)),
                               rtol=1e-6)


def test_jit_of_jit_and_decorator_forms():
    @astjax.function
    def inner(x):
        return x * 2

    @astjax.jit
    def outer(x):
        return inner(x) + 1
    assert float(outer(3.0)) == 7.0
    (call,) = astjax.make_jaxpr(outer)(3.0).jaxpr.eqns   # make_jaxpr(jit(f)): one `jit`
    eqns = call.params["jaxpr"].jaxpr.eqns
    # the inner jit is one `jit` equation too, as JAX's (tests/test_jit_call.py)
    assert [e.primitive.name for e in eqns] == ["jit", "add"]
    assert [e.primitive.name for e in eqns[0].params["jaxpr"].eqns] == ["mul"]


def test_augmented_assignment_tuple_unpacking_subscripts():
    def f(x):
        a, (b, c) = x[0], (x[1], x[2:])
        a += b
        a *= 2
        return a, c.sum(), x[::-1], x.T @ x
    x = np.arange(4, dtype=np.float32)
    a, s, r, d = astjax.jit(f)(x)
    assert float(a) == 2.0 and float(s) == 5.0 and float(d) == 14.0
    np.testing.assert_array_equal(np.asarray(r), x[::-1])


def test_lax_calls():
    def f(x):
        return lax.exp(x) + lax.max(x, 0.0)
    np.testing.assert_allclose(float(astjax.jit(f)(1.0)), np.e + 1, rtol=1e-6)

# ------------------------------------------------------------------ plain NumPy calls


def test_numpy_functions_on_staged_values():
    def f(x, w):
        y = np.sin(x) + np.abs(x) + np.exp(x)
        return np.dot(y, w), np.sum(y, axis=0), np.mean(x), np.tanh(x) * 2, np.maximum(x, 0.5)
    x = np.linspace(-1, 1, 6).astype(np.float32).reshape(2, 3)
    w = np.ones((3, 2), np.float32)
    names = [e.primitive.name for e in astjax.make_jaxpr(f)(x, w).jaxpr.eqns]
    assert "sin" in names and "dot_general" in names
    got = astjax.jit(f)(x, w)
    y = np.sin(x) + np.abs(x) + np.exp(x)
    ref = (np.dot(y, w), np.sum(y, axis=0), np.mean(x), np.tanh(x) * 2, np.maximum(x, 0.5))
    for g, r in zip(got, ref):
        np.testing.assert_allclose(np.asarray(g), r, rtol=1e-5, atol=1e-6)


def test_numpy_array_operand_on_the_left():
    def f(x):
        return np.ones(3, np.float32) + x, np.float32(2) * x
    a, b = astjax.jit(f)(np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(a), [1, 2, 3])
    np.testing.assert_array_equal(np.asarray(b), [0, 2, 4])

# ------------------------------------------------------------- lowering / compiling


def test_lower_as_text_and_compile():
    def model(x, y, z):
        return jnp.sum(x + y * z)
    x = jnp.ones(3)
    lowered = astjax.jit(model).lower(x, x, x)
    text = lowered.as_text()
    assert text.startswith("module @jit_model")
    for op in ("stablehlo.multiply", "stablehlo.add", "stablehlo.reduce"):
        assert op in text
    compiled = lowered.compile()
    assert float(compiled(x, x, x)) == 6.0


def test_method_decorator():
    class Model:
        def __init__(self, k):
            self.k = k

        @functools.partial(astjax.jit, static_argnums=0)
        def apply(self, x):
            return x * self.k

        def __hash__(self):
            return hash(self.k)

        def __eq__(self, other):
            return isinstance(other, Model) and other.k == self.k
    assert float(Model(3.0).apply(2.0)) == 6.0


def test_donation_deletes_input():
    j = astjax.jit(lambda x: x + 1, donate_argnums=0)
    x = astjax.device_put(np.ones(3, np.float32))
    y = j(x)
    np.testing.assert_array_equal(np.asarray(y), [2, 2, 2])
    assert x.is_deleted()


def test_fast_path_with_statics_and_kwargs():
    def f(x, n, y=0.0, *, mode="add"):
        for _ in range(n):
            x = x + y if mode == "add" else x * y
        return x
    j = astjax.jit(f, static_argnums=1, static_argnames="mode")
    x = astjax.device_put(np.ones(2, np.float32))
    for _ in range(3):  # repeated calls go through the fast-path cache
        np.testing.assert_array_equal(np.asarray(j(x, 2, 3.0)), [7, 7])
        np.testing.assert_array_equal(np.asarray(j(x, 3, y=3.0)), [10, 10])
        np.testing.assert_array_equal(np.asarray(j(x, 2, y=3.0, mode="mul")), [9, 9])
        np.testing.assert_array_equal(np.asarray(j(x, n=1, y=np.array(2, np.float32))), [3, 3])
    assert _compiles(j) == 4
    assert len(j._fast) == 4
    k = astjax.jit(lambda a, b: a - b)
    for _ in range(2):
        assert float(k(b=1.0, a=3.0)) == 2.0
        assert float(k(3.0, b=1.0)) == 2.0


def test_fast_path_keeps_pytree_structure_apart():
    j = astjax.jit(lambda t: jax_tree_sum(t))
    a = astjax.device_put(np.ones(2, np.float32))
    for _ in range(2):
        assert float(j((a, a))) == 4.0
        assert float(j([a, a])) == 4.0
        assert float(j({"p": a, "q": (a, a)})) == 6.0
        assert float(j({"p": a, "r": (a, a)})) == 6.0
        assert float(j((a, None, [a]))) == 4.0
    assert _compiles(j) == 5


def jax_tree_sum(t):
    return sum(jnp.sum(leaf) for leaf in astjax.tree_util.tree_leaves(t))


def test_works_beside_jax_in_one_process(tmp_path):
    """astjax never imports jax, and keeps working when jax is imported too."""
    import subprocess
    import sys
    code = (
        "import sys, numpy as np\n"
        "import astjax, astjax.numpy as jnp\n"
        "assert 'jax' not in sys.modules, 'astjax imported jax'\n"
        "a = astjax.jit(lambda x: x * 2)(jnp.ones(3))\n"
        "try:\n"
        "    import jax\n"
        "except ImportError:\n"
        "    jax = None\n"
        "if jax is not None:\n"
        "    j = jax.jit(lambda x: x + 1)(jax.numpy.ones(3))\n"
        "    b = astjax.jit(lambda x: x - 1)(np.asarray(j))\n"
        "    assert np.asarray(b).tolist() == [1.0, 1.0, 1.0]\n"
        "assert np.asarray(a).tolist() == [2.0, 2.0, 2.0]\n"
        "print('ok')\n")
    script = tmp_path / "beside_jax.py"  # a file: astjax stages from source
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


def test_fast_path_leaf_order_matches_tree_flatten():
    """The dispatch fast path flattens arguments itself; its leaf order must be
    tree_util's, or arguments would be swapped."""
    from astjax import api
    a = astjax.device_put(np.ones(2, np.float32))
    tree = ({"z": 1.0, "a": [a, None, (np.zeros(3), 2)], "m": {"y": True, "b": a}}, [3.0])
    leaves = []
    api._tree_sig(tree, leaves)
    expected = astjax.tree_util.tree_leaves(tree)
    assert len(leaves) == len(expected)
    assert all(x is y for x, y in zip(leaves, expected))

    j = astjax.jit(lambda d: d["b"] - d["a"] * 10)
    x, y = astjax.device_put(np.ones(3, np.float32)), astjax.device_put(np.zeros(3, np.float32))
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(j({"b": x, "a": y})), [1, 1, 1])
        np.testing.assert_array_equal(np.asarray(j({"a": x, "b": y})), [-10, -10, -10])


def test_repr_is_jaxs():
    """`repr(jit(f))` is JAX's text (chex's `is_traceable` reads it)."""
    def f(x):
        return x
    assert repr(astjax.jit(f)) == f"<PjitFunction of {f!r}>"
