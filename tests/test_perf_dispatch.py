"""Mechanism tests for issue 14 (speed), dispatch: an eager `jnp` op runs one
compiled program (no lax / bind layer); a jit call on NumPy arrays goes through
jaxlib's C++ dispatch (keyed on x64, stepping aside while real JAX is imported);
trees of Arrays are keyed by jaxlib's C++ flatten; committed arrays cost the
uncommitted fast paths nothing; and the Python frames a call enters are counted.
Each test pins *why* a call is fast, never a time."""
import collections
import functools
import sys

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.codegen import eager_programs, runtime
from astjax.numpy import ufuncs
from perf_helpers import compiles, counter, skip_if_real_jax_loaded  # noqa: F401 -- a fixture


def test_eager_op_takes_the_fast_path(monkeypatch):
    z, y = jnp.asarray(np.linspace(0, 1, 16, dtype=np.float32)), jnp.ones(16)
    ref = np.sin(np.linspace(0, 1, 16, dtype=np.float32)) * np.float32(0.5) + 1
    for _ in range(2):  # warm: executables compiled, the scalar 0.5 on the device
        jnp.sin(z) * 0.5 + y
    calls = {"general": 0, "put": 0, "promote": 0, "eager_apply": 0, "program": 0,
             "compile": 0}

    def counter(name, fn):
        def counted(*a, **k):
            calls[name] += 1
            return fn(*a, **k)
        return counted
    monkeypatch.setattr(runtime, "_eager_general", counter("general", runtime._eager_general))
    monkeypatch.setattr(runtime, "put_host", counter("put", runtime.put_host))
    monkeypatch.setattr(runtime, "compile_mlir", counter("compile", runtime.compile_mlir))
    monkeypatch.setattr(astjax.core, "eager_backend",
                        counter("eager_apply", astjax.core.eager_backend))
    monkeypatch.setattr(eager_programs.EagerProgram, "run",
                        counter("program", eager_programs.EagerProgram.run))
    for f in ("promote_args", "promote_args_inexact"):
        monkeypatch.setattr(ufuncs, f, counter("promote", getattr(ufuncs, f)))
    for _ in range(50):
        out = jnp.sin(z) * 0.5 + y
    # one compiled program per op (a jnp-level cache): no lax / bind / eager_apply layer
    assert calls == {"general": 0, "put": 0, "promote": 0, "eager_apply": 0,
                     "program": 150, "compile": 0}, calls
    assert out.dtype == np.float32 and not out.aval.weak_type
    np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-6)


def test_eager_programs_match_the_op_by_op_path():
    """Each signature's second call makes its program (checked against the op-by-op
    result's type); values, dtypes and weak types then agree with the op-by-op path."""
    f32, f16, i32 = jnp.ones(3, np.float32) * 0.25, jnp.ones(3, np.float16), jnp.ones(3, np.int32)
    cases = [(jnp.multiply, f32, 0.5), (jnp.subtract, 0.5, f32), (jnp.true_divide, f32, f32),
             (jnp.add, i32, i32), (jnp.maximum, f32, -1.5), (jnp.arctan2, f32, 3.0),
             (jnp.less, f32, 0.3), (jnp.multiply, f32, 0.0), (jnp.multiply, f32, -0.0),
             (jnp.add, f32, float("nan")), (jnp.sin, f32), (jnp.floor, i32), (jnp.exp, f16), (jnp.multiply, f16, 0.5),
             (jnp.sqrt, f32), (jnp.negative, i32)]
    for fn, *args in cases:
        ref = astjax.jit(fn)(*args)
        outs = [fn(*args) for _ in range(4)]   # counted, made, then the program
        for out in outs:
            assert (out.dtype, out.shape, out.aval.weak_type) == \
                (ref.dtype, ref.shape, ref.aval.weak_type), (fn, args)
            np.testing.assert_array_equal(np.asarray(out), np.asarray(ref))
    # -0.0 and 0.0 are different values of the scalar operand
    assert np.signbit(np.asarray(jnp.multiply(f32, -0.0))).all()
    assert not np.signbit(np.asarray(jnp.multiply(f32, 0.0))).any()
    made = {k[0].__name__ for k in eager_programs.eager_programs if hasattr(k[0], "__name__")}
    assert {"multiply", "subtract", "true_divide", "sin", "less"} <= made


def test_eager_programs_step_aside_for_staging_and_debug_nans():
    x = jnp.full(3, -1.0)
    for _ in range(3):
        jnp.log(x)   # the program of log on f32[3] exists now
    with astjax.debug_nans(True):
        with pytest.raises(FloatingPointError, match="encountered in log"):
            jnp.log(x)
    # under staging a concrete Array operand is a constant of the program, not run now
    closed = astjax.make_jaxpr(lambda v: jnp.log(x) + v)(1.0)
    assert [e.primitive.name for e in closed.jaxpr.eqns][:1] == ["log"]


def test_ufunc_fast_path_matches_promotion():
    f32, i32 = jnp.ones(3, np.float32), jnp.ones(3, np.int32)
    for x, y in [(f32, 0.5), (0.5, f32), (f32, f32), (i32, 0.5), (i32, i32), (f32, 2),
                 (f32, np.float64(0.5)), (jnp.ones(3) * 2, jnp.ones((2, 3)))]:
        for fn in (jnp.add, jnp.multiply, jnp.true_divide, jnp.subtract):
            fast, slow = fn(x, y), astjax.jit(fn)(x, y)
            assert fast.dtype == slow.dtype and fast.shape == slow.shape, (fn, x, y)
            assert fast.aval.weak_type == slow.aval.weak_type, (fn, x, y)
            np.testing.assert_allclose(np.asarray(fast), np.asarray(slow))
    assert jnp.sin(i32).dtype == np.float32 and jnp.sin(f32).dtype == np.float32


def _axpy(x, y):
    return x * y + 1.0


def test_flat_numpy_dispatch_skips_the_signature_walk(monkeypatch):
    jf = astjax.jit(_axpy)
    x, y = np.ones(3, np.float32), np.full(3, 2.0, np.float32)
    jf(x, y)
    calls = counter(monkeypatch, astjax.api.Jitted, "_signature")
    for _ in range(20):
        out = jf(x, y)
    assert calls[0] == 0
    np.testing.assert_allclose(np.asarray(out), [3.0, 3.0, 3.0])
    # another dtype is another signature (float64 input canonicalized, not reused stale)
    out64 = jf(np.ones(3), np.full(3, 2.0))
    assert out64.dtype == np.float32 and np.asarray(out64).tolist() == [3.0, 3.0, 3.0]
    assert jf(np.ones(2, np.float32), np.ones(2, np.float32)).shape == (2,)


def _axpyz(x, y, z):
    return x * y + z


def test_flat_numpy_dispatch_puts_arguments_in_the_executables_frame(monkeypatch):
    j1, j3 = astjax.jit(jnp.sin), astjax.jit(_axpyz)
    x = np.linspace(0, 1, 4, dtype=np.float32)
    j1(x), j3(x, x, x)
    calls = [0]

    def counted(*a, **k):
        calls[0] += 1
        raise AssertionError("the NumPy fast path should not reach put_host / run")
    monkeypatch.setattr(runtime, "put_host", counted)
    monkeypatch.setattr(astjax.api._Entry, "run", counted)
    for _ in range(5):
        a, b = j1(x), j3(x, x, x)
    np.testing.assert_allclose(np.asarray(a), np.sin(x), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(b), x * x + x, rtol=1e-6)
    assert calls[0] == 0
    monkeypatch.undo()
    c = j3(x, x, np.ones(4))   # float64 (canonicalized to float32): its own signature
    assert c.dtype == np.float32
    np.testing.assert_allclose(np.asarray(c), x * x + 1, rtol=1e-6)


def _tree_out(t):
    return {"b": t["a"] * 2.0, "a": [t["b"], None, (t["a"], t["b"] + 1.0)]}


def _ordered_out(x):
    return collections.OrderedDict(z=x, a=x + 1.0)


def test_pytree_outputs_unflatten_in_cpp_with_tree_utils_structure():
    from astjax import dispatch_keys, tree_util
    jf = astjax.jit(_tree_out)
    t = {"a": jnp.ones(2), "b": jnp.zeros(1)}
    first, second = jf(t), jf(t)   # slow path, then the fast path
    entry = next(iter(jf._fast.values()))
    assert not isinstance(entry.unflatten, functools.partial)   # jaxlib's unflatten
    for out in (first, second):
        assert tree_util.tree_structure(out) == entry.out_tree
        assert list(out) == ["a", "b"] and out["a"][1] is None
        np.testing.assert_array_equal(np.asarray(out["a"][2][1]), [1.0])
    # a tree with a container jaxlib's registry does not know keeps tree_util's unflatten
    jo = astjax.jit(_ordered_out)
    out = jo(jnp.ones(1))
    assert type(out) is collections.OrderedDict and list(out) == ["z", "a"]
    assert isinstance(dispatch_keys.unflattener(next(iter(jo._cache.values())).out_tree),
                      functools.partial)


@astjax.tree_util.register_pytree_node_class
class _Box:
    def __init__(self, v):
        self.v = v

    def tree_flatten(self):
        return (self.v,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


def test_block_until_ready_waits_for_every_array_leaf(monkeypatch):
    waited, batched = [], []
    monkeypatch.setattr(runtime.Array, "block_until_ready",
                        lambda self: waited.append(self) or self)
    orig = runtime.xc._xla.batched_block_until_ready
    monkeypatch.setattr(runtime.xc._xla, "batched_block_until_ready",
                        lambda bufs: batched.extend(bufs) or orig(bufs))
    a, b, c, d = (jnp.full(2, float(i)) for i in range(4))
    tree = {"p": [a, (b, None)], "box": _Box(c), "od": collections.OrderedDict(k=d), "n": 3}
    assert astjax.block_until_ready(tree) is tree
    assert [x for x in batched] == [a._buf, b._buf]   # builtin containers: one batched wait
    assert waited == [c, d]                             # the rest through tree_util
    weird = {1: a, "x": b}   # keys jaxlib cannot sort: tree_util's walk (and its error)
    with pytest.raises(TypeError) as expected:
        astjax.tree_util.tree_leaves(weird)
    with pytest.raises(TypeError, match=str(expected.value)[:30]):
        astjax.block_until_ready(weird)


def _mad(x, y):
    return x * y + 1.0


def _pair(x, y):
    return x - y, {"s": x + y}


def _count_python_numpy_calls(monkeypatch):
    """A one-item list counting the calls of astjax's Python dispatch on NumPy
    arguments (`Jitted._call_numpy`)."""
    from astjax import api
    return counter(monkeypatch, api.Jitted, "_call_numpy")


def test_numpy_calls_run_through_jaxlibs_cpp_dispatch(monkeypatch):
    from astjax import api
    from astjax.codegen import cpp_jit
    skip_if_real_jax_loaded()
    jf = astjax.jit(_mad)
    x, y = np.arange(3, dtype=np.float32), np.full(3, 2.0, np.float32)
    first = jf(x, y)
    cpp = jf._fast[api._CPP]
    assert cpp is not None and cpp_jit.available()
    calls = _count_python_numpy_calls(monkeypatch)
    outs = [jf(x, y) for _ in range(5)]
    assert calls[0] == 1   # jaxlib's first sight of the signature; then C++ alone
    entry = jf._cache[next(iter(jf._cache))]
    for out in [first] + outs:
        assert type(out) is runtime.Array and out.aval is entry.executable.out_avals[0]
        np.testing.assert_array_equal(np.asarray(out), x * y + 1)
    assert type(jf(x, y) + 1.0) is runtime.Array   # results are astjax arrays
    # float64 arguments: canonicalized to float32 by jaxlib as by astjax
    out64 = jf(np.arange(3.0), np.full(3, 2.0))
    assert out64.dtype == np.float32 and np.asarray(out64).tolist() == [1.0, 3.0, 5.0]
    with pytest.raises(TypeError):   # astjax's own error for a string array, not jaxlib's
        jf(np.array(["a", "b", "c"]), y)
    # jaxlib reads a byte-swapped array's bytes as native ones (JAX 0.10.2 returns
    # [1, 1, 1] here): such arrays keep astjax's own path and its error
    swapped = x.astype(">f4")
    for args in [(swapped, y), (y, swapped), (swapped, swapped)]:   # (either, or one
        with pytest.raises(TypeError):                               # dtype object shared)
            jf(*args)
    # a shape error raised while staging comes back through jaxlib unchanged
    with pytest.raises(astjax.errors.ShapeError, match="incompatible shapes") as e:
        jf(np.ones(3, np.float32), np.ones(4, np.float32))
    assert "_MissError" not in str(e.value) and "return x * y + 1.0" in str(e.value)
    # a tree result jaxlib cannot rebuild: the function goes back to Python dispatch
    jp = astjax.jit(_pair)
    for _ in range(3):
        d, tree = jp(x, y)
        np.testing.assert_array_equal(np.asarray(tree["s"]), x + y)
    assert jp._fast.get(api._CPP, None) is None


def test_cpp_dispatch_steps_aside_when_real_jax_is_imported(monkeypatch):
    import types
    from astjax import api
    jf = astjax.jit(_mad)
    x = np.ones(2, np.float32)
    jf(x, x)
    monkeypatch.setitem(sys.modules, "jax._src.config", types.ModuleType("jax._src.config"))
    calls = _count_python_numpy_calls(monkeypatch)
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(jf(x, x)), [2.0, 2.0])
    assert calls[0] == 3   # astjax's Python dispatch: jaxlib's settings may be JAX's


def test_cpp_dispatch_follows_x64():
    jf = astjax.jit(_mad)
    x = np.ones(2)
    assert jf(x, x).dtype == np.float32
    astjax.config.update("jax_enable_x64", True)
    try:
        for _ in range(3):
            out = jf(x, x)
            assert out.dtype == np.float64
            np.testing.assert_array_equal(np.asarray(out), [2.0, 2.0])
    finally:
        astjax.config.update("jax_enable_x64", False)
    assert jf(x, x).dtype == np.float32


def _count(b):
    return jnp.cumsum(b)


def test_cpp_dispatch_keys_on_x64_where_the_arguments_do_not_change():
    # a bool argument's type is the same under both settings, its cumsum's is not: an
    # entry jaxlib made under x64 must not serve an x32 call (int64 under x32 was
    # returned, silently, when the setting was not in jaxlib's jit key)
    jf, b = astjax.jit(_count), np.ones(3, bool)
    for x64, want in [(True, np.int64), (False, np.int32), (True, np.int64),
                      (False, np.int32)]:
        with astjax.enable_x64(x64):
            for _ in range(3):   # the first call sets up jaxlib's dispatch, the rest use it
                out = jf(b)
                assert out.dtype == want, (x64, out.dtype)
                np.testing.assert_array_equal(np.asarray(out), [1, 2, 3])


def _int_scaled(x, n):
    return jnp.sum(jnp.sin(x) * n)


def test_float0_results_of_a_compiled_call_are_host_zeros(monkeypatch):
    """grad(allow_int=True) of an integer argument under jit: the program returns
    only the float gradient; the float0 one is made on the host (as in JAX), on
    every dispatch path (NumPy, Arrays, .lower().compile())."""
    vg = astjax.jit(astjax.value_and_grad(_int_scaled, argnums=(0, 1), allow_int=True))
    x, n = np.ones(3, np.float32), np.int32(2)
    want = np.cos(x) * 2
    for args in [(x, n)] * 3 + [(astjax.device_put(x), astjax.device_put(n))] * 3:
        v, (dx, dn) = vg(*args)
        # (a NumPy array with `weak_type` False, as JAX's TypedNdArray)
        assert isinstance(dn, np.ndarray) and dn.dtype == astjax.float0 and dn.shape == ()
        assert dn.weak_type is False
        assert type(dx) is runtime.Array
        np.testing.assert_allclose(np.asarray(dx), want, rtol=1e-6)
        np.testing.assert_allclose(float(v), np.sin(1.0) * 6, rtol=1e-6)
    g = astjax.grad(_int_scaled, argnums=1, allow_int=True)
    lowered = astjax.jit(g).lower(x, n)
    # no results: JAX prints `@main(...) {` without an arrow
    assert "float0" not in lowered.as_text() and "->" not in lowered.as_text()
    out = lowered.compile()(x, n)
    assert out.dtype == astjax.float0 and out.shape == ()
    # make_jaxpr still shows the float0 output, as JAX's does
    assert "float0[]" in str(astjax.make_jaxpr(g)(x, n))


def _counting_placement(monkeypatch):
    return counter(monkeypatch, runtime, "placement")


def test_uncommitted_arrays_skip_placement_on_the_fast_paths(monkeypatch, compiles):
    """The placement rule costs the common (uncommitted) case nothing: after warm-up,
    jit and eager calls on plain Arrays never ask `runtime.placement`. Committed
    arguments ask it on their first call only; then jit and eager ops on them take the
    fast paths too (keyed with their device), and the executable on their device is
    compiled once."""
    if len(astjax.devices()) < 2:
        pytest.skip("needs 2 devices")
    jf = astjax.jit(_mad)
    x, y = jnp.ones(3), jnp.full(3, 2.0)
    params = [(x, y), (y, x)]
    tree = astjax.jit(_tree_product)
    for _ in range(2):
        jf(x, y), x * y + 1.0, tree(params)
    calls = _counting_placement(monkeypatch)
    for _ in range(10):
        jf(x, y), x * y + 1.0, tree(params)
    assert calls[0] == 0
    d1 = astjax.devices()[1]
    c1 = astjax.device_put(x, d1)
    n0 = compiles[0]
    jf(c1, y), astjax.lax.mul(c1, c1)
    first = calls[0]
    slow = counter(monkeypatch, astjax.api.Jitted, "_call_slow")
    general = counter(monkeypatch, runtime, "_eager_general")
    for _ in range(5):
        out, sq = jf(c1, y), astjax.lax.mul(c1, c1)
    assert (calls[0], slow[0], general[0]) == (first, 0, 0)
    assert out.committed and out.devices() == {d1} and sq.committed and sq.devices() == {d1}
    np.testing.assert_array_equal(np.asarray(out), [3.0, 3.0, 3.0])
    assert compiles[0] - n0 <= 2   # jit's program and `mul`'s on device 1, at most
    entry, = [e for e in jf._cache.values() if e.placed]
    assert list(entry.placed) == [d1]   # one executable on device 1


def _tree_product(p):
    return p[0][0] * p[1][1]


def _tree_sum(p):
    return sum(w.sum() * b.sum() for w, b in p)


def _dict_sum(p):
    return sum(v.sum() for v in p.values())


def test_parameter_trees_are_keyed_by_jaxlibs_cpp_flatten(monkeypatch):
    """A list of (W, b) tuples of Arrays is flattened and keyed in C++ (no
    `_signature` walk); a dict-holding tree keeps `tree_sig` (jaxlib sorts dict keys
    slower than it) and never pays the C++ flatten; a new structure is a new entry."""
    jf, jd = astjax.jit(_tree_sum), astjax.jit(_dict_sum)
    params = [(jnp.ones((2, 2)), jnp.full(2, 2.0)), (jnp.ones(3), jnp.full(1, 3.0))]
    d = {"a": jnp.ones(2), "b": jnp.full(3, 2.0)}
    for _ in range(2):
        jf(params), jd(d)
    sig = counter(monkeypatch, astjax.api.Jitted, "_signature")
    flat = counter(monkeypatch, astjax.api, "_cpp_flatten")
    for _ in range(10):
        out = jf(params)
    assert (sig[0], flat[0]) == (0, 10) and float(out) == 4 * 4.0 + 3 * 3.0
    for _ in range(10):
        out = jd(d)
    assert (sig[0], flat[0]) == (10, 10) and float(out) == 8.0
    assert float(jf(params[:1])) == 16.0                      # another structure
    assert float(jf([(jnp.ones(3), jnp.ones(2))] * 2)) == 12.0  # other shapes


def _python_calls(fn, *args):
    """The Python functions (code names) entered while `fn(*args)` runs."""
    names = []

    def profile(frame, event, arg):
        if event == "call":
            names.append(frame.f_code.co_name)
    sys.setprofile(profile)
    try:
        fn(*args)
    finally:
        sys.setprofile(None)
    return names[1:]   # (without `fn` itself: jit's `__call__`)


def _leaf_sum(t):
    return sum(astjax.tree_util.tree_leaves(t))


def test_dict_argument_dispatch_enters_no_comprehension():
    """A jit call on a dict of Arrays (signature path) enters only the dispatch's own
    functions: the signature is a loop over the arguments, not a list comprehension
    (a frame of its own on Python 3.11: ~0.17 us a call); a signature of plain Arrays
    runs in `__call__` itself (one comprehension for the buffers, no `run`, no
    `call_buffers`), then one `Array.__init__` per result."""
    tree = {f"k{i}": jnp.asarray(np.full(2, i, np.float32)) for i in range(10)}
    jf = astjax.jit(_leaf_sum)
    jf(tree)
    jf(tree)
    calls = _python_calls(jf, tree)
    assert calls == ["_signature", "tree_sig", "<listcomp>", "__init__"], calls
    np.testing.assert_array_equal(np.asarray(jf(tree)), [45.0, 45.0])


def _warm_numpy_jit():
    """(jit(_mad), x, y) on two float32 NumPy arrays, warmed up until its calls run
    through jaxlib's C++ dispatch."""
    from astjax import api
    skip_if_real_jax_loaded()
    jf = astjax.jit(_mad)
    x, y = np.arange(3, dtype=np.float32), np.full(3, 2.0, np.float32)
    for _ in range(2):
        np.asarray(jf(x, y))
    assert jf._fast[api._CPP] is not None
    return jf, x, y


def test_numpy_in_numpy_out_enters_two_python_functions():
    """`np.asarray(jf(x, y))` on NumPy arrays, after warm-up: jit's `__call__` (the
    C++ dispatch inside it; the result's Array made there without an `__init__` frame)
    and one `__array__`, which reads the buffer itself (no `_value` frame; JAX: the
    buffer protocol, no Python)."""
    jf, x, y = _warm_numpy_jit()
    out = []
    calls = _python_calls(lambda: out.append(np.asarray(jf(x, y))))
    assert calls == ["__call__", "__array__"], calls
    np.testing.assert_array_equal(out[0], x * y + 1)
    assert not out[0].flags.writeable   # a read-only view, as JAX's
    # a second read is the same host array; dtype and copy requests still honoured
    r = jf(x, y)
    assert np.asarray(r) is np.asarray(r) is r._value()
    assert np.asarray(r, np.int32).dtype == np.int32 and np.array(r) is not r._value()


def test_the_host_view_of_a_deleted_array_is_jaxs_runtime_error():
    """`__array__` reads jaxlib's buffer protocol once and keeps the view; NumPy made a
    0-d object array holding the jaxlib buffer of a deleted (or donated) array, and a
    view read before the deletion was still served. JAX raises its RuntimeError in
    both cases; the check costs the fresh-result path (the row above) nothing."""
    x = jnp.arange(3.0) + 1
    x.delete()
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
        np.asarray(x)
    y = jnp.arange(3.0) + 1
    np.testing.assert_array_equal(np.asarray(y), [1.0, 2.0, 3.0])
    y.delete()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        np.asarray(y)
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        y.tolist()


def test_the_host_copy_of_a_narrow_dtype_searches_for_no_jax_module():
    """bfloat16 / float8 / int4 arrays, which NumPy's buffer protocol cannot carry, are
    read by jaxlib's host copy, whose C++ side imports `jax._src.sharding_impls` when
    it can: it searched the import path for JAX at every read (~250 Python frames; with
    JAX installed it would have imported it). The import is now refused at once, as
    `shards_of` does; the values are the same, read-only."""
    skip_if_real_jax_loaded()
    before = sys.modules.get("jax")   # (None, or astjax's alias: a test may install it)
    for x in (jnp.ones(3, jnp.bfloat16) + 1, jnp.full(3, 2, jnp.int4)):
        calls = _python_calls(np.asarray, x)
        assert not [c for c in calls if c in ("find_spec", "_find_spec")], calls
        assert len(calls) < 60, calls
        v = np.asarray(x)
        assert v.dtype == x.dtype and v.tolist() == [2, 2, 2] and not v.flags.writeable
    assert sys.modules.get("jax") is before


def test_numpy_in_numpy_out_calls_two_builtins_before_jaxlib():
    """Every call a profiler sees in a warm `np.asarray(jf(x, y))` on NumPy arrays,
    builtins too: jit's `__call__` calls `len(args)` and its table's `dict.get` (the
    PjitFunction), then jaxlib runs the program in C++ with no Python callback (no
    `_cpp_miss`, no `results`); `np.asarray` enters `__array__` once, which reads the
    buffer with one inner `np.asarray`. Nothing else runs in Python: what is left of
    the gap to JAX is these frames themselves (its jit and array are C++ types)."""
    jf, x, y = _warm_numpy_jit()
    events = []

    def profile(frame, event, arg):
        if event == "call":
            events.append(frame.f_code.co_name)
        elif event == "c_call":
            events.append(f"c:{arg.__name__}")
    sys.setprofile(profile)
    try:
        host = np.asarray(jf(x, y))
    finally:
        sys.setprofile(None)
    assert events[:-1] == ["__call__", "c:len", "c:get", "c:__new__", "c:asarray",
                           "__array__", "c:asarray"], events   # (-1: `setprofile`)
    np.testing.assert_array_equal(host, x * y + 1)


def test_the_numpy_path_result_is_the_array_init_makes():
    """The C++ path's result is made with `object.__new__` and its slots set in
    `__call__`: it holds what `Array(buf, aval)` holds, slot for slot (a slot added to
    `Array` must be set there too)."""
    from astjax.codegen import runtime
    jf, x, y = _warm_numpy_jit()
    r = jf(x, y)
    made = runtime.Array(r._buf, r._buf.aval)
    assert type(r) is runtime.Array
    for name in runtime.Array.__slots__:
        assert getattr(r, name) is getattr(made, name), name


def _dict_double(t):
    return {k: v * 2.0 for k, v in t.items()}


def test_a_signature_of_plain_arrays_runs_in_call_and_others_keep_run(monkeypatch):
    """A signature path key whose leaves are all plain Arrays maps to the entry's
    `for_arrays` view and runs in `Jitted.__call__` (no `_Entry.run`); keys with a
    host leaf (NumPy array, Python scalar) or a committed Array map to the entry itself
    (or its per-device view) and keep `run`, which puts or places them. Same values."""
    from astjax import api
    jd = astjax.jit(_dict_double)
    a, b = jnp.ones(2), jnp.full(3, 2.0)
    arrays = {"a": a, "b": b}
    host = {"a": np.ones(2, np.float32), "b": b}
    scalar = {"a": a, "b": b, "c": 1.5}
    for t in (arrays, host, scalar):
        jd(t)
    runs = counter(monkeypatch, api._Entry, "run")
    for _ in range(3):
        out = jd(arrays)
    assert runs[0] == 0
    assert jd._fast[jd._signature((arrays,), {}, [])].arrays
    for t in (host, scalar):
        key = jd._signature((t,), {}, [])
        assert not jd._fast[key].arrays
        out_t = jd(t)
        assert sorted(out_t) == sorted(t)
        np.testing.assert_array_equal(np.asarray(out_t["a"]), [2.0, 2.0])
    assert runs[0] == 2
    np.testing.assert_array_equal(np.asarray(out["b"]), [4.0, 4.0, 4.0])
    # the view shares the compiled program and holds no reference back (a cycle would
    # keep a dropped function's program until a later collection)
    base = next(iter(jd._cache.values()))
    view = base.for_arrays()
    assert view is base.arrays_view and view.arrays_view is None and not base.arrays
    assert view.executable is base.executable and view.exe is base.exe
    if len(astjax.devices()) >= 2:
        c = astjax.device_put(a, astjax.devices()[1])
        committed = {"a": c, "b": astjax.device_put(b, astjax.devices()[1])}
        for _ in range(2):
            out_c = jd(committed)
        assert out_c["a"].committed and out_c["a"].devices() == {astjax.devices()[1]}
        assert not jd._fast[jd._signature((committed,), {}, [])].arrays


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")  # records the count
def test_jit_fast_paths_see_stagings_through_a_per_thread_count():
    """`Jitted.__call__` tests the module-level `trace_state.staging_threads` before
    the thread-local `_state.builders`: every staging counts itself there while its
    builder is pushed (nested ones too, an error leaves none behind), so a jit called
    inside a staging is staged, and a jit called in one thread while another thread
    stages runs."""
    import threading
    from astjax import trace_state
    assert trace_state.staging_threads == {}
    seen, inner = [], astjax.jit(_mad)

    def outer(x):
        seen.append(dict(trace_state.staging_threads))
        return inner(x, x)   # staged inline: one `jit` equation
    jaxpr = astjax.make_jaxpr(astjax.jit(outer))(np.float32(1.0))
    assert seen == [{threading.get_ident(): 2}] and trace_state.staging_threads == {}
    assert "jit" in str(jaxpr)

    def fails(x):
        raise ValueError("staging failed")
    with pytest.raises(ValueError):
        astjax.jit(fails)(np.float32(1.0))
    assert trace_state.staging_threads == {}

    # another thread stages (held inside its function) while this one calls jit
    started, go, out = threading.Event(), threading.Event(), []

    def held(x):
        started.set()
        go.wait(30)
        return x + 1.0
    t = threading.Thread(target=lambda: out.append(astjax.jit(held)(np.float32(1.0))))
    t.start()
    try:
        assert started.wait(30)
        assert list(trace_state.staging_threads) == [t.ident]
        jf, x, y = _warm_numpy_jit()
        a = jnp.asarray(x)
        assert type(jf(x, y)) is runtime.Array and type(jf(a, a)) is runtime.Array
        np.testing.assert_array_equal(np.asarray(jf(a, a)), x * x + 1)
    finally:
        go.set()
        t.join()
    assert float(out[0]) == 2.0 and trace_state.staging_threads == {}


def test_host_reads_take_jaxlib_buffer_protocol_first(monkeypatch):
    """`Array.__array__` reads a buffer through jaxlib's buffer protocol and takes
    jaxlib's copy (`_host_copy`) only when NumPy gives its 0-d object array instead:
    ml_dtypes' dtypes (no buffer format) and deleted buffers (JAX's error). No dtype
    test on the way: the same values, dtype for dtype."""
    from astjax import dtypes
    copies = []
    original = runtime.Array._host_copy
    monkeypatch.setattr(runtime.Array, "_host_copy",
                        lambda self: copies.append(self.dtype) or original(self))
    user = {np.dtype(dtypes.bfloat16), *map(np.dtype, dtypes.NARROW_FLOATS),
            *map(np.dtype, dtypes.NARROW_INTS)}
    for dt in [np.bool_, np.int8, np.uint32, np.float16, np.float32, np.complex64,
               dtypes.bfloat16, *dtypes.NARROW_FLOATS, *dtypes.NARROW_INTS]:
        dt = np.dtype(dt)
        v = np.array([0, 1, 1], dt)
        try:
            a = jnp.asarray(v)
        except astjax.errors.RuntimeDTypeError:   # (jaxlib has no such buffers, as JAX)
            continue
        del copies[:]
        host = np.asarray(a)
        assert host.dtype == dt and host.tobytes() == v.tobytes(), dt
        assert copies == ([dt] if dt in user else []), dt
        assert np.asarray(a) is host and len(copies) == (dt in user)   # (read once)
    a = jnp.asarray(np.ones(3, np.float32))
    a.delete()
    with pytest.raises(RuntimeError, match="deleted"):
        np.asarray(a)
