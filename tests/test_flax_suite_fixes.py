"""What flax 0.12.8's own test suite (its sdist's tests/, run on astjax with
`python -m astjax run -m pytest FILE`) found, each as a minimal regression test."""
import functools
import json

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

from oracle import record_initializers_complex as rec_init


def test_einsum_calls_the_dot_general_hook_per_contraction_as_jax():
    """flax's attention and combinators pass `_dot_general=` to `jnp.einsum`: each
    pairwise contraction calls it with dot_general's arguments, the operands' result
    type as `preferred_element_type` when none is asked for (what JAX 0.10.2 passes)."""
    calls = []

    def hook(a, b, dims, precision=None, preferred_element_type=None, **kw):
        calls.append((a.shape, b.shape, dims, precision, preferred_element_type, kw))
        return lax.dot_general(a, b, dims, precision,
                               preferred_element_type=preferred_element_type) * 2

    x, y, z = (np.arange(6.0, dtype=np.float32).reshape(2, 3),
               np.arange(12.0, dtype=np.float32).reshape(3, 4), np.ones(4, np.float32))
    got = astjax.jit(lambda x, y, z: jnp.einsum("ij,jk,k->i", x, y, z, optimize=False,
                                                _dot_general=hook))(x, y, z)
    np.testing.assert_allclose(got, 4 * (x @ y @ z))
    assert [c[:3] for c in calls] == [((2, 3), (3, 4), (((1,), (0,)), ((), ()))),
                                      ((2, 4), (4,), (((1,), (0,)), ((), ())))]
    assert all(c[3] is None and c[4] == np.float32 and c[5] == {} for c in calls)


class _Struct:
    """A user's abstract array: only `shape` and `dtype` (JAX accepts it in abstract stages)."""
    shape, dtype = (2, 3), np.float32


@pytest.mark.parametrize("arg", [_Struct(), astjax.core.ShapedArray((2, 3), np.float32)],
                         ids=["struct", "ShapedArray"])
def test_abstract_stages_take_anything_with_a_shape_and_dtype(arg):
    """flax's `ConvLocal` calls `eval_shape` on a `ShapedArray`; JAX's eval_shape,
    make_jaxpr and jit(...).trace / .lower take any object with `.shape` and `.dtype`
    (JAX 0.10.2: ShapeDtypeStruct(shape=(3, 2), dtype=float32) and this jaxpr)."""
    f = lambda a: a.T * 2   # noqa: E731
    want = astjax.ShapeDtypeStruct((3, 2), np.float32)
    assert astjax.eval_shape(f, arg) == want
    assert astjax.jit(f).trace(arg).out_info == want
    assert astjax.jit(f).lower(arg).out_info == want
    assert str(astjax.make_jaxpr(f)(arg)) == (
        "{ lambda ; a:f32[2,3]. let\n    b:f32[3,2] = transpose[permutation=(1, 0)] a\n"
        "    c:f32[3,2] = mul b 2.0:f32[]\n  in (c,) }")
    with pytest.raises(TypeError):   # a call needs values, as JAX's
        astjax.jit(f)(arg)


def test_eval_shape_keeps_a_weak_type():
    weak = astjax.core.ShapedArray((), np.float32, weak_type=True)
    assert astjax.eval_shape(lambda a: a * 2, weak) == astjax.ShapeDtypeStruct(
        (), np.float32, weak_type=True)


def test_shaped_array_takes_jaxs_keywords():
    """flax's `nn.scan` builds `ShapedArray(shape=, dtype=, sharding=x.aval.sharding,
    weak_type=)`; astjax's plain type takes the keywords, and refuses (not drops) a layout
    over partitioned axes, manual axes or the host memory space."""
    x = jnp.ones((4, 3))
    a = astjax.core.ShapedArray(shape=x.shape[1:], dtype=x.dtype, sharding=x.aval.sharding,
                                weak_type=x.weak_type)
    assert a == astjax.core.ShapedArray((3,), np.float32)
    assert isinstance(a, astjax.core.AbstractValue)
    replicated = astjax.sharding.NamedSharding(astjax.make_mesh((1,), ("x",)),
                                               astjax.sharding.PartitionSpec(None))
    assert astjax.core.ShapedArray((3,), np.float32, sharding=replicated) == a
    split = astjax.sharding.NamedSharding(astjax.make_mesh((1,), ("x",)),
                                          astjax.sharding.PartitionSpec("x"))
    with pytest.raises(ValueError, match="ShapeDtypeStruct"):
        astjax.core.ShapedArray((3,), np.float32, sharding=split)
    with pytest.raises(ValueError, match="HostShapedArray"):
        astjax.core.ShapedArray((3,), np.float32, memory_space=astjax.memory.Space.Host)


def test_variance_scaling_draws_complex_and_geometric_fans_as_jax():
    """flax's complex Dense parameters: `variance_scaling` of a complex dtype draws
    JAX's complex truncated normal / disk samples, and mode "fan_geo_avg" exists
    (bit-equal to JAX 0.10.2's draws, tests/oracle/record_initializers_complex.py)."""
    want = json.loads(rec_init.PATH.read_text())
    got = rec_init.run(astjax, jnp)
    assert sorted(got) == sorted(want)
    for name in want:
        np.testing.assert_array_equal(np.asarray(got[name]), np.asarray(want[name]), name)


def test_jit_checks_a_wrapper_against_its_own_parameters():
    """flax's lifted jit calls a `functools.wraps` wrapper that takes more arguments
    than the function it wraps: Python binds the wrapper's own parameters (JAX calls it)."""
    def inner(x):
        return x + 1

    @functools.wraps(inner)
    def wrapper(tag, x):
        return inner(x) * tag

    assert float(astjax.jit(wrapper, static_argnums=0)(2, 1.0)) == 4.0
    with pytest.raises(TypeError, match="wrapper"):
        astjax.jit(wrapper)(1.0)


def test_trace_to_jaxpr_nounits_computes_the_known_outputs():
    """flax's lazy_init and nn.scan's broadcast check read which outputs depend on no
    unknown input: those come back known, with their values (as JAX's partial_eval)."""
    from astjax.interpreters import partial_eval as pe

    def f(a, b, c):
        k = jnp.sin(a) * 2
        return k, k + b, c * 3

    a, c = np.float32(0.5), np.ones(2, np.float32)
    jaxpr, out_pvals, res = pe.trace_to_jaxpr_nounits(f, [
        pe.PartialVal.known(a), pe.PartialVal.unknown(astjax.core.ShapedArray((3,), np.float32)),
        pe.PartialVal.known(c)])
    assert [pv.is_known() for pv in out_pvals] == [True, False, True]
    np.testing.assert_allclose(out_pvals[0].get_known(), np.sin(a) * 2, rtol=1e-6)
    np.testing.assert_array_equal(out_pvals[2].get_known(), c * 3)
    assert out_pvals[1][0] == astjax.core.ShapedArray((3,), np.float32)
    assert str(jaxpr) == "{ lambda a:f32[]; b:f32[3]. let c:f32[3] = add a b in (c,) }"
    np.testing.assert_allclose(res[0], np.sin(a) * 2, rtol=1e-6)
    _, all_unknown, _ = pe.trace_to_jaxpr_nounits(f, [
        pe.PartialVal.known(a), pe.PartialVal.unknown(astjax.core.ShapedArray((3,), np.float32)),
        pe.PartialVal.known(c)], instantiate=True)
    assert not any(pv.is_known() for pv in all_unknown)


def test_staging_leaves_no_cycle_holding_staged_values(monkeypatch):
    """flax's LeakTests: `checking_leaks` with `gc.collect` patched out finds no staged
    value kept alive by a reference cycle (tree_util's recursive closures were cycles
    through their own cells, holding the trees they flattened)."""
    import gc

    @astjax.jit
    @functools.partial(astjax.vmap, in_axes=(0, None))
    def sample(rng, inp):
        params = {"w": astjax.random.normal(rng, (5, 5)), "b": jnp.zeros(5)}
        return inp @ params["w"] + params["b"]

    monkeypatch.setattr(gc, "collect", lambda *a: 0)
    with astjax.checking_leaks():
        for _ in range(2):
            rngs = astjax.random.split(astjax.random.key(23), 3)
            sample(rngs, np.ones((2, 5), np.float32)).block_until_ready()


def test_a_partial_given_a_partial_keeps_its_arguments_static():
    """flax's `nn.vjp` returns `Partial(functools.partial(_bwd_wrapper, treedef), bwd)`:
    as JAX's, the inner partial (and the treedef it binds) is the static function, not
    leaves (functools merges nested partials' arguments)."""
    td = astjax.tree_util.tree_structure({"a": 1})

    def g(t, b, c):
        return (t, b, c)

    p = astjax.tree_util.Partial(functools.partial(g, td), 2.0)
    leaves, tree = astjax.tree_util.tree_flatten(p)
    assert leaves == [2.0] and p.args == (2.0,)
    assert astjax.tree_util.tree_unflatten(tree, [5.0])(3.0) == (td, 5.0, 3.0)
    assert tree == astjax.tree_util.tree_structure(p)
    out = astjax.jit(lambda q, x: q(x)[1] * x)(p, np.float32(3.0))
    assert float(out) == 6.0


def test_jit_given_both_static_argnums_and_argnames_completes_neither():
    """flax's lifted jit gives both, for a `functools.wraps` wrapper whose signature
    names other parameters: JAX then takes them as given (no completion from the
    signature, which here would make the NumPy array `x` static: unhashable)."""
    def inner(x, flag):
        return x

    @functools.wraps(inner)
    def wrapper(tag, x, flag=False):
        return x * 2 if flag else x

    j = astjax.jit(wrapper, static_argnums=(0,), static_argnames=("flag",))
    np.testing.assert_array_equal(j("t", np.ones(2, np.float32), flag=True), [2.0, 2.0])


def test_key_arrays_update_at_an_index_as_jax():
    """flax's while_loop test stores a key with `keys.at[i].set(key)`; values are
    JAX 0.10.2's (key data of split(key(0), 3) with key(7) at index 1)."""
    ks = astjax.random.split(astjax.random.key(0), 3)
    want = np.array([[1797259609, 2579123966], [0, 7], [4146024105, 2718843009]], np.uint32)
    np.testing.assert_array_equal(astjax.random.key_data(ks.at[1].set(astjax.random.key(7))),
                                  want)
    got = astjax.jit(lambda ks, k, i: ks.at[i].set(k))(ks, astjax.random.key(7), 1)
    np.testing.assert_array_equal(astjax.random.key_data(got), want)
    np.testing.assert_array_equal(astjax.random.key_data(ks.at[2].get()), want[2])
    with pytest.raises(TypeError, match="keys of the same"):
        ks.at[0].set(np.zeros(2, np.uint32))


def test_a_cond_branch_staged_once_dies_with_its_program():
    """flax's summary tests under `check_tracer_leaks`: `lax.cond`'s per-program
    branch cache kept staged values alive after staging (a module-level weak dict whose
    values held tracers of its key, the builder)."""
    def f(x, p):
        y = jnp.sin(x)
        branch = lambda: y * 2   # noqa: E731  (closes over a staged value)
        return lax.cond(p, branch, branch) + lax.cond(p, branch, lambda: -y)

    with astjax.checking_leaks():
        out = astjax.jit(f)(np.float32(0.5), True)
    np.testing.assert_allclose(out, 4 * np.sin(np.float32(0.5)), rtol=1e-6)


def test_shaped_arrays_and_partial_eval_of_typed_keys():
    """flax's `nn.scan(split_rngs=...)` builds `ShapedArray(keys.shape,
    jnp.result_type(keys))` and stages its body on it (JAX 0.10.2: result_type is the
    key dtype, its own result only; the aval prints `ShapedArray(key<fry>[3])`)."""
    from astjax.interpreters import partial_eval as pe
    keys = astjax.random.split(astjax.random.key(0), 3)
    dt = jnp.result_type(keys)
    assert dt == keys.dtype and jnp.result_type(keys, keys) == dt
    with pytest.raises(ValueError, match="not a valid dtype for JAX type promotion"):
        jnp.result_type(keys, 1.0)
    aval = astjax.core.ShapedArray(keys.shape, dt)
    assert aval == keys.aval and repr(aval) == "ShapedArray(key<fry>[3])"

    def body(k, x):
        return astjax.random.normal(k[0], (2,)) * x, jnp.zeros(2)
    _, out_pvals, _ = pe.trace_to_jaxpr_nounits(body, [
        pe.PartialVal.unknown(aval), pe.PartialVal.known(np.float32(2.0))])
    assert [pv.is_known() for pv in out_pvals] == [False, True]
    np.testing.assert_array_equal(out_pvals[1].get_known(), np.zeros(2, np.float32))


class _Wrapped:
    """A user's object with JAX's `__jax_array__` protocol (flax's nnx `Variable`)."""

    def __init__(self, v):
        self.v = v

    def __jax_array__(self):
        return self.v


_PROTOCOL_CASES = {   # name -> (function of x, NumPy's result for x = [0, 1, 2])
    "asarray": (lambda x: jnp.asarray(_Wrapped(x)), lambda x: x),
    "array": (lambda x: jnp.array(_Wrapped(x)), lambda x: x),
    "array_of_list": (lambda x: jnp.array([_Wrapped(x), _Wrapped(2 * x)]),
                      lambda x: np.stack([x, 2 * x])),
    "add": (lambda x: x + _Wrapped(x), lambda x: 2 * x),
    "mul": (lambda x: x * _Wrapped(x), lambda x: x * x),
    "eq": (lambda x: x == _Wrapped(x), lambda x: np.ones(3, bool)),
    "ne": (lambda x: x != _Wrapped(x), lambda x: np.zeros(3, bool)),
    "matmul": (lambda x: x @ _Wrapped(x), lambda x: x @ x),
    "reshape": (lambda x: jnp.reshape(_Wrapped(x), (3, 1)), lambda x: x.reshape(3, 1)),
    "einsum": (lambda x: jnp.einsum("i,i", _Wrapped(x), x), lambda x: x @ x),
    "ndim": (lambda x: x + jnp.ndim(_Wrapped(x)) + jnp.shape(_Wrapped(x))[0],
             lambda x: x + 4),
}


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("name", sorted(_PROTOCOL_CASES))
def test_jax_array_protocol_where_jax_honours_it(name, jit):
    """nnx's `Variable` has `__jax_array__`: flax's `promote_dtype` calls `jnp.asarray` on
    parameters (a TracerArrayConversionError under jit), and `x == v` compared identities
    (a silent False where JAX gives the elementwise result)."""
    f, want = _PROTOCOL_CASES[name]
    x = np.arange(3.0, dtype=np.float32)
    got = (astjax.jit(f) if jit else f)(jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(got), want(x))


def test_jax_array_protocol_where_jax_refuses_it():
    """JAX's jitted jnp functions (sin, sum, ...) refuse the protocol with a ValueError."""
    x = np.arange(3.0, dtype=np.float32)
    for f in (jnp.sin, jnp.sum):
        with pytest.raises(ValueError, match="Triggering __jax_array__"):
            f(_Wrapped(x))


@pytest.mark.parametrize("types, want", [
    (("Auto", "Auto"), (True, False, False, ("a", "b"), (), ())),
    (("Explicit", "Explicit"), (False, True, False, (), ("a", "b"), ())),
    (("Explicit", "Manual"), (False, False, False, (), ("a",), ("b",))),
])
def test_mesh_axis_type_queries(types, want):
    """flax's `core.spmd` asks `mesh.are_all_axes_explicit` / `_auto` (JAX's queries)."""
    AxisType = astjax.sharding.AxisType
    types = tuple(getattr(AxisType, t) for t in types)
    for mesh in (astjax.make_mesh((1, 1), ("a", "b"), axis_types=types),
                 astjax.sharding.AbstractMesh((1, 1), ("a", "b"), axis_types=types)):
        assert (mesh.are_all_axes_auto, mesh.are_all_axes_explicit, mesh.are_all_axes_manual,
                mesh.auto_axes, mesh.explicit_axes, mesh.manual_axes) == want
    empty = astjax.sharding.AbstractMesh((), ())
    assert not (empty.are_all_axes_auto or empty.are_all_axes_explicit)


def test_eager_constraint_to_an_abstract_mesh_layout():
    """nnx's `Param(..., sharding=...)` under `set_mesh` constrains an eager value to a
    NamedSharding over the *abstract* mesh: JAX lays it out on the context mesh's devices
    (astjax asked the AbstractMesh for its devices: AttributeError). An Auto mesh: on an
    Explicit one JAX 0.10.2's constraint is an assert of the type (AssertionError here)."""
    P = astjax.sharding.PartitionSpec
    mesh = astjax.make_mesh((1,), ("x",), axis_types=(astjax.sharding.AxisType.Auto,))
    with astjax.set_mesh(mesh):
        s = astjax.sharding.NamedSharding(astjax.sharding.get_abstract_mesh(), P("x"))
        out = lax.with_sharding_constraint(jnp.arange(4.0), s)
    np.testing.assert_array_equal(out, np.arange(4.0))
    assert out.sharding == astjax.sharding.NamedSharding(mesh, P("x"))


def test_staged_constraint_to_an_abstract_mesh_layout():
    """The same inside `jit` (nnx's bridge: `with_sharding_constraint(state,
    get_partition_spec(state))` on layouts over `get_abstract_mesh()`): the program's
    devices are `set_mesh`'s (astjax asked the AbstractMesh for devices); and an
    AbstractMesh is its own `abstract_mesh` (random samplers' `out_sharding=`). An Auto
    mesh, as above."""
    P = astjax.sharding.PartitionSpec
    mesh = astjax.make_mesh((1,), ("x",), axis_types=(astjax.sharding.AxisType.Auto,))
    with astjax.set_mesh(mesh):
        abstract = astjax.sharding.get_abstract_mesh()
        assert abstract.abstract_mesh is abstract
        s = astjax.sharding.NamedSharding(abstract, P("x"))
        out = astjax.jit(lambda a: lax.with_sharding_constraint(a * 2, s))(jnp.arange(4.0))
    np.testing.assert_array_equal(out, 2 * np.arange(4.0))


def test_is_leaf_takes_path():
    """nnx's graph flattening calls `tree_flatten_with_path(..., is_leaf_takes_path=True)`
    (JAX 0.10.2's option: `is_leaf(path, subtree)`); results recorded from JAX 0.10.2."""
    from astjax.tree_util import DictKey, SequenceKey
    t = {"a": [1, (2, 3)], "b": {"c": 4}}
    pl = lambda p, x: len(p) == 2 and isinstance(x, tuple)   # noqa: E731
    pairs, treedef = astjax.tree_util.tree_flatten_with_path(t, pl, is_leaf_takes_path=True)
    assert pairs == [((DictKey("a"), SequenceKey(0)), 1), ((DictKey("a"), SequenceKey(1)), (2, 3)),
                     ((DictKey("b"), DictKey("c")), 4)]
    assert str(treedef) == "PyTreeDef({'a': [*, *], 'b': {'c': *}})"
    assert astjax.tree.leaves_with_path(t, pl, True) == pairs
    assert astjax.tree.map_with_path(lambda p, x: len(p), t, is_leaf=pl,
                                     is_leaf_takes_path=True) == {"a": [2, 2], "b": {"c": 2}}
    assert astjax.tree.map_with_path(lambda p, x: len(p), t, is_leaf=lambda x: isinstance(
        x, list)) == {"a": 1, "b": {"c": 2}}


def test_jax_src_abstract_ref_is_the_type_of_references():
    """nnx's `is_array_ref(x)` is `isinstance(jax.typeof(x), jax._src.state.types.
    AbstractRef)`: the compat class was a stand-in no value had, so nnx took a shared
    `jax.new_ref` for an array (no ValueError from `nnx.split([ref, ref])`)."""
    from astjax.compat._src.state.types import AbstractRef
    assert isinstance(astjax.typeof(astjax.new_ref(jnp.ones(2))), AbstractRef)
    assert not isinstance(astjax.typeof(jnp.ones(2)), AbstractRef)


@astjax.tree_util.register_pytree_node_class
class _WrappedNode(_Wrapped):
    """The protocol on a pytree node, as nnx's `Variable` (JAX: every jnp function
    takes it, its jit flattening the node)."""

    def tree_flatten(self):
        return (self.v,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_jax_array_protocol_of_a_pytree_node(jit):
    x = np.arange(3.0, dtype=np.float32)
    f = lambda a: (jnp.sin(_WrappedNode(a)), jnp.dot(a, _WrappedNode(a)))   # noqa: E731
    s, d = (astjax.jit(f) if jit else f)(jnp.asarray(x))
    np.testing.assert_allclose(s, np.sin(x), rtol=1e-6)
    np.testing.assert_allclose(d, x @ x)


def test_array_copies_as_jax():
    """`jnp.array(a)` (copy=True, the default), `jnp.copy(a)`, `a.copy()` and
    `jnp.asarray(a, copy=True)` make a new array -- a `copy` equation when staged -- as
    JAX's: nnx's `clone(arrays=True)` copies buffers with `jnp.copy` so that donating
    the clone leaves the original alone (astjax handed back `a` itself: donation
    deleted the original's buffer). `copy=False` and `asarray(a)` keep `a`."""
    a = jnp.ones(3)
    assert all(b is not a for b in (jnp.copy(a), a.copy(), jnp.array(a),
                                    jnp.asarray(a, copy=True)))
    assert jnp.array(a, copy=False) is a and jnp.asarray(a) is a
    copy = "{ lambda ; a:f32[2]. let b:f32[2] = copy a in (b,) }"   # JAX 0.10.2's
    for f in (jnp.array, jnp.copy, lambda x: jnp.asarray(x, copy=True)):
        assert str(astjax.make_jaxpr(f)(jnp.ones(2))) == copy
    assert str(astjax.make_jaxpr(jnp.asarray)(jnp.ones(2))) == "{ lambda ; a:f32[2]. let  in (a,) }"
    b = jnp.copy(a)
    astjax.jit(lambda x: x + 1, donate_argnums=0)(b)
    np.testing.assert_array_equal(a, np.ones(3))


def test_jnp_dtype_is_numpys_class():
    """orbax-checkpoint writes `jnp.dtype | np.dtype` at import; JAX's `jnp.dtype` is
    NumPy's class (so `jnp.dtype(int)` is int64, uncanonicalized, as JAX 0.10.2 says)."""
    assert isinstance(np.dtype("f4"), jnp.dtype)
    assert jnp.dtype(int) == np.dtype("int64") and jnp.dtype("bfloat16") == jnp.bfloat16


def _forward(method):
    """A `*args` forwarder naming `method` in `__wrapped__` (flax's decorators)."""
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        return method(*args, **kwargs)
    return wrapper


@pytest.mark.parametrize("decorated", [False, True])
def test_a_callable_object_binds_with_its_own_call(decorated):
    """flax's nnx `ScanFn` / `SimpleScanFn` are objects that `functools.update_wrapper`
    the user's function (`scan_fn(cell, carry, x)`, `loop(foo)`) but whose
    `__call__(self, carry, x)` -- plain, or decorated by a `*args` forwarder naming it in
    `__wrapped__` -- is what `lax.scan` calls: astjax checked the call against the
    wrapped user function (ArityError in every `nnx.RNN` and 24 of flax's scan tests)."""
    def user(cell, carry, x):
        return carry, x

    def call(self, carry, x):
        return carry + x, 2 * x

    class ScanFn:
        def __init__(self, f):
            functools.update_wrapper(self, f)

        __call__ = _forward(call) if decorated else call

    c, ys = lax.scan(ScanFn(user), np.float32(0), np.arange(3.0, dtype=np.float32))
    assert float(c) == 3.0
    np.testing.assert_array_equal(ys, [0.0, 2.0, 4.0])


def test_colocated_python_runs_here_on_cpu_devices():
    """orbax-checkpoint imports `jax.experimental.colocated_python` (and its `func`,
    `serialization`) at module level. On CPU devices JAX 0.10.2 runs a colocated
    function in the process itself (checked: `f(x) = x * 2` gives `[0, 2]` on the
    argument's device; a Python int argument is JAX's AttributeError, its dtype read);
    a colocated class is used as it is."""
    from astjax.compat.experimental import colocated_python as cp
    devs = tuple(astjax.devices())
    assert cp.colocated_cpu_devices(devs) == devs
    assert isinstance(cp.serialization.DeviceList(devs), tuple)
    f = cp.colocated_python(lambda x: x * 2)
    x = astjax.device_put(jnp.arange(2.0), devs[0])
    np.testing.assert_array_equal(f(x), [0.0, 2.0])
    np.testing.assert_array_equal(f.specialize(devices=devs[:1])(jnp.ones(2)), [2.0, 2.0])
    with pytest.raises(AttributeError, match="dtype"):
        f(1)

    @cp.colocated_python_class
    class Scale:
        def __init__(self, k):
            self.k = k

        def apply(self, v):
            return v * self.k
    np.testing.assert_array_equal(Scale(3.0).apply(jnp.ones(2)), [3.0, 3.0])


def test_reflected_divmod():
    """flax's `cursor_test` calls `divmod(7, cursor)`: JAX's arrays have `__rdivmod__`."""
    q, r = divmod(7, jnp.asarray(np.int32(3)))
    assert (int(q), int(r)) == divmod(7, 3)
    q, r = divmod(-7.5, jnp.asarray(np.float32(2)))
    assert (float(q), float(r)) == divmod(-7.5, 2.0)


class _Forwarder:
    """flax's `Cursor`: forwards every attribute to the object it wraps, and answers
    the reflected operators itself."""

    def __init__(self, obj):
        object.__setattr__(self, "_obj", obj)

    def __getattr__(self, name):
        return getattr(object.__getattribute__(self, "_obj"), name)

    def __radd__(self, other):
        return ("radd", other)

    def __rmul__(self, other):
        return ("rmul", other)


def test_an_object_forwarding_attributes_is_not_an_array():
    """flax's `cursor_test`: `array + cursor` (the cursor forwards `_buf`, `dtype`, ...
    to an array) is the cursor's `__radd__`, as JAX's operators return NotImplemented
    for it (astjax took it for an array: a TypeError reading its dtype)."""
    a = jnp.ones(2)
    assert a + _Forwarder(a) == ("radd", a) and a * _Forwarder(a) == ("rmul", a)
    got = astjax.jit(lambda a: (a + _Forwarder(a))[1] * 3)(a)
    np.testing.assert_array_equal(got, [3.0, 3.0])
    with pytest.raises(TypeError):
        jnp.add(a, _Forwarder(a))


@pytest.mark.parametrize("prefix, full, where", [
    ({"x": 1.0, "y": [2.0]}, {"x": 1.0, "y": 2.0}, "in_axes['y']"),
    ([0, (1,)], [0, [1]], "in_axes[1]"),
    ((1, 2), (1, 2, 3), "in_axes"),
    ({"a": 1}, {"b": 1}, "in_axes"),
    ({"a": None}, {"a": 1}, "in_axes['a']"),
    (0, {"a": [1]}, None),
    ({"a": (0, 1)}, {"a": (1, [2])}, None),
])
def test_prefix_errors_name_the_key_path(prefix, full, where):
    """flax's `struct_test` imports `jax._src.tree_util.prefix_errors`: one function
    per place `prefix` is not a prefix of `full`, giving the ValueError that names the
    key path under the prefix's name (JAX 0.10.2's paths for these cases)."""
    from astjax.compat._src.tree_util import prefix_errors
    errors = prefix_errors(prefix, full)
    if where is None:
        assert errors == []
    else:
        (e,) = errors
        assert isinstance(e("in_axes"), ValueError)
        assert str(e("in_axes")).splitlines()[1] == "    " + where


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_isclose_of_typed_keys_compares_them(jit):
    """flax's `core_scope_test` asserts `not jnp.allclose(key_a, key_b)`: JAX's isclose
    compares typed keys exactly (astjax refused a key operand)."""
    k = astjax.random.key(0)
    allclose = astjax.jit(jnp.allclose) if jit else jnp.allclose
    assert not bool(allclose(k, astjax.random.key(1))) and bool(allclose(k, k))
    np.testing.assert_array_equal(jnp.isclose(astjax.random.split(k, 3), k), [False] * 3)


@pytest.mark.parametrize("op", [lambda k: k == 1.0, lambda k: k != jnp.ones(2),
                                lambda k: jnp.equal(k, 1), lambda k: jnp.isclose(k, 1.0)])
def test_a_key_compared_with_a_number_is_a_type_error(op):
    """JAX 0.10.2: `key == 1.0` is "TypeError: equal does not accept dtypes key<fry>,
    float32." (astjax answered a silent False: Python's identity fallback)."""
    with pytest.raises(TypeError, match="does not accept dtypes key<fry>"):
        op(astjax.random.key(0))


def test_eager_control_flow_stages_a_function_once():
    """flax's `test_cache_tracing_*`: JAX caches what an eager `lax.scan` / `cond` /
    `while_loop` traced, keyed weakly by the function (and the types and configuration),
    so calling one again runs no Python (astjax staged the body on every call); a new
    function, other types, another configuration or `clear_caches` stage again."""
    calls = []

    def body(c, x):
        calls.append("scan")
        return c + x, x * 2

    def branch(x):
        calls.append("cond")
        return x + 1

    def step(c):
        calls.append("while")
        return c + 1
    xs = jnp.arange(3.0)
    for _ in range(2):
        c, _ys = lax.scan(body, jnp.float32(0), xs)
        lax.cond(True, branch, branch, jnp.float32(1))
        lax.while_loop(lambda c: c < 3, step, jnp.int32(0))
    assert float(c) == 3.0 and calls == ["scan", "cond", "while"]
    lax.scan(body, jnp.float32(0), jnp.arange(4))          # other types
    lax.scan(lambda c, x: body(c, x), jnp.float32(0), xs)   # another function
    assert calls.count("scan") == 3
    astjax.clear_caches()
    lax.scan(body, jnp.float32(0), xs)
    assert calls.count("scan") == 4
    with astjax.numpy_rank_promotion("raise"):   # another configuration
        lax.scan(body, jnp.float32(0), xs)
    assert calls.count("scan") == 5


def _passthrough(p, b, x):
    return lax.cond(p, lambda b, x: (b, x + 1), lambda b, x: (b, x), b, x)


def test_cond_prunes_an_operand_every_branch_returns():
    """JAX's `lax.cond` drops an output every branch forwards from one operand (the
    caller gets the operand): JAX 0.10.2 prints exactly this."""
    assert str(astjax.make_jaxpr(_passthrough)(True, 1.0, 2.0)) == """\
{ lambda ; a:bool[] b:f32[] c:f32[]. let
    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    e:f32[] = cond[
      branches=(
        { lambda ; f:f32[] g:f32[]. let  in (g,) }
        { lambda ; h:f32[] i:f32[]. let j:f32[] = add i 1.0:f32[] in (j,) }
      )
    ] d b c
  in (b, e) }"""
    b, y = lax.cond(True, lambda b, x: (b, x), lambda b, x: (b, x), 1.0, jnp.ones(2))
    assert b.dtype == np.float32 and b.weak_type and float(b) == 1.0


@pytest.mark.parametrize("b", [1.0, jnp.int32(3)], ids=["python-scalar", "array"])
def test_vmap_of_cond_keeps_a_passed_through_operand_unbatched(b):
    """flax's `test_vmap_and_cond_passthrough`: under `vmap` with a batched predicate,
    an unbatched operand both branches return stays unbatched (`out_axes=None` is
    allowed, as on JAX; astjax selected it per lane: "vmap has a mapped output")."""
    f = astjax.vmap(_passthrough, in_axes=(0, None, 0), out_axes=(None, 0))
    out_b, ys = f(jnp.array([True, False]), b, jnp.array([1.0, 2.0]))
    assert out_b.shape == () and float(out_b) == float(b)
    np.testing.assert_array_equal(ys, [2.0, 2.0])


@pytest.mark.parametrize("args, in_axes", [
    ((np.ones((2, 3), np.float32), 4), ((0, None),)),
    ((np.ones((2, 3), np.float32), [4]), ((0, None),)),
])
def test_vmap_hands_unmapped_non_array_leaves_over_as_they_are(args, in_axes):
    """flax's `lift.vmap` (core_vmap_test) maps `(x, features)` with `(0, None)`: JAX
    hands an unmapped leaf that is no array (`features`, an int) to the function as it
    is, so `jnp.zeros((n,))` works; astjax did so for whole arguments only and staged a
    leaf inside one (TracerIntegerConversionError)."""
    def f(a):
        x, n = a
        n = n if isinstance(n, int) else n[0]
        return jnp.zeros((n,)) + x.sum()
    np.testing.assert_array_equal(astjax.vmap(f, in_axes=in_axes)(args), np.full((2, 4), 3.0))


def test_vmap_names_the_out_axes_path_of_a_mapped_output_given_none():
    """flax's `test_vmap_and_cond_passthrough_error` matches JAX 0.10.2's message."""
    f = astjax.vmap(lambda x: ({"a": x, "b": x},), out_axes=({"a": None, "b": 0},))
    with pytest.raises(ValueError, match=r"^at vmap out_axes\[0\]\['a'\], got axis spec "
                                         r"None but output was batched on axis 0$"):
        try:
            f(jnp.ones(2))
        except astjax.errors.AstjaxError as e:
            raise ValueError(str(e).splitlines()[-2].split(": ", 1)[1]) from e


_LIB = '''
def run(user, boundary):
    return boundary(lambda: helper(user))()

def helper(user):
    return user()
'''


def _filtered_failure(tmp_path, mode, nested=False):
    """A library (its file's frames excluded, as flax's `hide_flax_in_tracebacks`
    appends them) calls a user function that raises under an `api_boundary`."""
    from astjax.compat._src import traceback_util as jtu
    lib = tmp_path / "tblib.py"
    lib.write_text(_LIB)
    ns = {}
    exec(compile(_LIB, str(lib), "exec"), ns)

    def user():
        raise ValueError("error here.")

    inner = jtu.api_boundary(lambda: ns["run"](user, lambda f: f))
    fn = jtu.api_boundary(lambda: inner()) if nested else inner
    old = astjax.config.read("jax_traceback_filtering")
    astjax.config.update("jax_traceback_filtering", mode)
    jtu._exclude_paths.append(str(lib))
    try:
        with pytest.raises(ValueError) as info:
            fn()
    finally:
        jtu._exclude_paths.remove(str(lib))
        astjax.config.update("jax_traceback_filtering", old)
    return info.value, str(lib)


def _files(tb):
    import traceback
    return [(f.f_code.co_filename, "__tracebackhide__" in f.f_locals)
            for f, _ in traceback.walk_tb(tb)]


def test_api_boundary_tracebackhide_marks_excluded_frames(tmp_path):
    """flax's traceback_util_test: 'tracebackhide' keeps every frame, the excluded
    ones (a library's appended file, astjax's) carrying a `__tracebackhide__` local."""
    e, lib = _filtered_failure(tmp_path, "tracebackhide")
    files = _files(e.__traceback__)
    assert [f for f, hidden in files if not hidden] == [__file__] * 3
    assert any(f == lib and hidden for f, hidden in files)


@pytest.mark.parametrize("nested", [False, True])
def test_api_boundary_remove_frames_keeps_the_unfiltered_cause(tmp_path, nested):
    """'remove_frames' drops the excluded frames and chains an `UnfilteredStackTrace`
    holding them, once however many boundaries the exception leaves."""
    from astjax.compat._src import traceback_util as jtu
    e, lib = _filtered_failure(tmp_path, "remove_frames", nested)
    assert [f for f, _ in _files(e.__traceback__)] == [__file__] * (3 + nested)
    assert isinstance(e.__cause__, jtu.UnfilteredStackTrace)
    assert "ValueError: error here." in str(e.__cause__)
    assert lib in [f for f, _ in _files(e.__cause__.__traceback__)]
    assert not isinstance(e.__cause__.__cause__, jtu.UnfilteredStackTrace)


def test_api_boundary_default_mode_removes_frames_with_a_note(tmp_path):
    e, _ = _filtered_failure(tmp_path, "auto", nested=True)
    assert [f for f, _ in _files(e.__traceback__)] == [__file__] * 4
    assert len(e.__notes__) == 1 and "JAX has removed its internal frames" in e.__notes__[0]
    e, lib = _filtered_failure(tmp_path, "off")
    assert lib in [f for f, _ in _files(e.__traceback__)] and e.__cause__ is None


def test_traceback_filtering_rejects_unknown_modes():
    with pytest.raises(ValueError, match="jax_traceback_filtering"):
        astjax.config.update("jax_traceback_filtering", "hide")


@pytest.mark.parametrize("like", ["zeros_like", "ones_like", "empty_like", "full_like"])
def test_jnp_like_of_a_sharded_array_keeps_its_sharding(like):
    """flax's test_shard_optimizer_state: optax's `adam(...).init` makes its moments
    with `jnp.zeros_like` of sharded parameters; JAX places them as the parameters."""
    from astjax.sharding import NamedSharding, PartitionSpec as P
    mesh = astjax.make_mesh((2, 2), ("row", "col"), devices=astjax.devices()[:4])
    s = NamedSharding(mesh, P("row", "col"))
    x = astjax.device_put(jnp.ones((8, 2)), s)
    args = (x, 3.0) if like == "full_like" else (x,)
    out = getattr(jnp, like)(*args)
    assert out.sharding.is_equivalent_to(s, 2)
    np.testing.assert_array_equal(out, np.full((8, 2), {"ones_like": 1, "full_like": 3}
                                                       .get(like, 0), np.float32))
    assert len(jnp.zeros_like(x, shape=(3,)).sharding.device_set) == 1   # (JAX's too)


def test_eval_shape_keeps_the_explicit_layout_of_its_results():
    """flax's test_eval_shape_with_explicit_sharding: `eval_shape` gives a result typed
    over Explicit axes its layout (a NamedSharding over the abstract mesh), as JAX's;
    results over Auto axes or no mesh have none."""
    from astjax.sharding import AxisType, NamedSharding, PartitionSpec as P, reshard
    devs = astjax.devices()[:4]
    mesh = astjax.make_mesh((2, 2), ("a", "b"), (AxisType.Explicit,) * 2, devices=devs)
    auto = astjax.make_mesh((2, 2), ("a", "b"), (AxisType.Auto,) * 2, devices=devs)
    out = astjax.eval_shape(lambda: reshard(jnp.ones((4, 4)), NamedSharding(mesh, P("a"))))
    assert out.sharding.spec == P("a", None) and out.sharding.mesh == mesh.abstract_mesh
    x = astjax.device_put(jnp.ones((4, 4)), NamedSharding(mesh, P(None, "b")))
    assert astjax.eval_shape(lambda x: x * 2, x).sharding.spec == P(None, "b")
    with astjax.set_mesh(mesh):
        assert astjax.eval_shape(lambda: jnp.ones((4, 4))).sharding.spec == P(None, None)
    with astjax.set_mesh(auto):
        assert astjax.eval_shape(lambda: jnp.ones((4, 4))).sharding is None
    assert astjax.eval_shape(lambda: 1.0).weak_type


def test_conv_general_dilated_lays_its_result_out_as_out_sharding():
    """flax's test_out_sharding_conv: `lax.conv_general_dilated(..., out_sharding=)`
    types its result as asked on Explicit axes (it was dropped), eager and in `jit`."""
    from astjax.sharding import AxisType, PartitionSpec as P, reshard
    mesh = astjax.make_mesh((2, 2), ("X", "Y"), (AxisType.Explicit,) * 2,
                            devices=astjax.devices()[:4])

    def conv(x, k, **kw):
        return lax.conv_general_dilated(x, k, (1,), "SAME",
                                        dimension_numbers=("NWC", "WIO", "NWC"), **kw)
    with astjax.set_mesh(mesh):
        x = reshard(jnp.arange(32.0).reshape(2, 4, 4), P("X", None, None))
        k = jnp.ones((3, 4, 8))
        assert str(astjax.typeof(conv(x, k))) == "float32[2@X,4,8]"
        for f in (conv, astjax.jit(conv, static_argnames="out_sharding")):
            y = f(x, k, out_sharding=P("X", "Y", None))
            assert str(astjax.typeof(y)) == "float32[2@X,4@Y,8]"
            np.testing.assert_allclose(y, conv(x, k), rtol=1e-6)


def test_with_sharding_constraint_takes_a_format():
    """flax's `Variable(out_sharding=Format(...))`: `with_sharding_constraint` lays a
    value out as a `jax.experimental.layout.Format`'s sharding (it raised a TypeError);
    a memory layout other than row-major, which astjax does not keep, is a located
    NotImplementedError rather than dropped."""
    from astjax.compat.experimental.layout import Format, Layout
    from astjax.errors import NotImplementedInAstjaxError
    from astjax.sharding import AxisType, NamedSharding, PartitionSpec as P
    mesh = astjax.make_mesh((2, 2), ("d", "m"), (AxisType.Auto,) * 2,
                            devices=astjax.devices()[:4])
    ns = NamedSharding(mesh, P("d", None))
    y = lax.with_sharding_constraint(jnp.ones((4, 4)), Format(Layout((0, 1)), ns))
    assert y.sharding.is_equivalent_to(ns, 2)
    f = astjax.jit(lambda t: lax.with_sharding_constraint(t, {"a": Format(None, ns)}))
    assert f({"a": jnp.ones((4, 4))})["a"].sharding.is_equivalent_to(ns, 2)
    with pytest.raises(NotImplementedInAstjaxError, match="not row-major") as info:
        lax.with_sharding_constraint(jnp.ones((4, 4)), Format(Layout((1, 0)), ns))
    assert isinstance(info.value, NotImplementedError) and __file__ in str(info.value)
