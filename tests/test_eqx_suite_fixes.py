"""Fixes found by running equinox's own test suite on astjax (docs/ecosystem.md,
"equinox's own test suite"), each checked against JAX 0.10.2's stored behaviour
(tests/oracle/record_eqx_suite_fixes.py -> eqx_suite_fixes.json); none needs equinox."""
import json
import warnings
from pathlib import Path

import pytest

import astjax as jax
import astjax.numpy as jnp
from oracle.record_eqx_suite_fixes import (copy_cases, donation_cases, main_attributes,
                                           misc_cases, run)

ORACLE = json.loads(Path(__file__).with_name("oracle").joinpath(
    "eqx_suite_fixes.json").read_text())


@pytest.fixture(scope="module")
def ours():
    """Every case run once on astjax (the recording script's own `run`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # (staging notes of the cases themselves)
        return run(jax)


@pytest.mark.parametrize("name", sorted(copy_cases(jnp)))
def test_array_copies_as_jax(ours, name):
    """`jnp.array(x)` / `jnp.copy(x)` / `asarray(x, copy=True)` are new arrays (a
    `copy` equation when staged), as JAX's: equinox's tests donate `jnp.copy(a)` and
    then read `a`, which astjax had handed out as the copy (its buffer was deleted)."""
    assert ours["copy"][name] == ORACLE["copy"][name]


@pytest.mark.parametrize("name", sorted(donation_cases(jnp)))
def test_donation_as_jax(ours, name):
    """A donated argument aliases the first result of its shape and dtype
    (`tf.aliasing_output`), else one of its size (`jax.buffer_donor`), else is not
    donated and named in JAX's warning (equinox's `filter_jit(donate=...)` tests read
    the result's buffer pointer and match the warning's text)."""
    assert ours["donation"][name] == ORACLE["donation"][name]


@pytest.mark.parametrize("name", sorted(misc_cases(jax)))
def test_misc_as_jax(ours, name):
    """`reduce_window` from `-inf` / `inf` over integers is max / min pooling (the
    identity is compared in the initial value's own dtype: equinox's MaxPool); Python
    scalars converted under `ensure_compile_time_eval` inside a staged `vmap` are
    concrete (equinox's rotary embedding cache held staged values); `vmap` hands
    unmapped arguments that are not arrays to the function as they are (equinox's
    AdaptivePool passes a size and a function with in_axes None); a symbolic-zeros
    `custom_vjp` fwd sees integer and constant operands as not perturbed (equinox's
    `filter_custom_vjp` asserts it in `eqxi.scan(kind="checkpointed")`); constants made
    under `ensure_compile_time_eval` inside `jit` are concrete (equinox's
    `Enumeration.where` of a Python bool); avals have JAX's `to_tangent_aval` /
    `to_ct_aval` / `at_least_vspace` (equinox's `materialise_zeros`); a builder lowering
    rule may call back into Python with `mlir.emit_python_callback` (equinox's
    `noinline`), whose results are checked for JAX's dtype; a `custom_jvp_call`
    equation's `get_bind_params` hands the body and the rule over as JAX's `subfuns`,
    and `bind` takes them back (equinox's `finalise_jaxpr`)."""
    assert ours["misc"][name] == ORACLE["misc"][name]


def test_copy_before_donation_keeps_the_original():
    """The equinox pattern itself: donate a `jnp.copy`, keep using the original."""
    f = jax.jit(lambda x: x + 1, donate_argnums=0)
    a = jnp.arange(3.0)
    out = f(jnp.copy(a))
    assert not a.is_deleted()
    assert out.tolist() == [1.0, 2.0, 3.0]


def test_main_attributes_reads_each_argument():
    """The oracle's signature reader (no attributes, one, several arguments)."""
    text = ("func.func public @main(%arg0: tensor<f32> {tf.aliasing_output = 0 : i32}, "
            "%arg1: tensor<10xf32>) -> (tensor<f32>) {")
    assert main_attributes(text) == ["tf.aliasing_output = 0 : i32", None]


def test_axis_primitive_batchers_take_jax_0_10_signature():
    """JAX 0.10.2's `axis_primitive_batchers[p] = rule(axis_size, axis_name,
    trace_type, args, dims)` (a compatibility shim: `trace_type` is None) and
    `fancy_primitive_batchers[p] = rule(axis_data, args, dims)`; equinox's
    `create_vprim` registers the first."""
    from astjax.extend.core import Primitive
    from astjax.interpreters import batching
    seen = {}
    for table, name in ((batching.axis_primitive_batchers, "legacy"),
                        (batching.fancy_primitive_batchers, "fancy")):
        p = Primitive(f"eqx_fix_double_{name}")
        p.def_impl(lambda x: 2 * x)
        p.def_abstract_eval(lambda x: x)

        def rule(*a, _name=name, _p=p, **params):
            seen[_name] = a[:-2]
            args, dims = a[-2:]
            return _p.bind(args[0]), dims[0]
        table[p] = rule
        out = jax.vmap(p.bind, axis_name="i")(jnp.arange(3.0))
        assert out.tolist() == [0.0, 2.0, 4.0]
        assert table[p] is rule
    assert seen["legacy"] == (3, "i", None)
    assert [(a.size, a.name) for a in seen["fancy"]] == [(3, "i")]


def test_rebinding_equations():
    """`eqn.primitive.get_bind_params(eqn.params)` re-binds an equation (JAX 0.10.2
    returns the params), `eqn.effects` is empty for a pure one, and a primitive may
    have a parameter named `prim` (equinox's vprim)."""
    from astjax.extend.core import Primitive
    closed = jax.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0)
    for eqn in closed.jaxpr.eqns:
        assert eqn.primitive.get_bind_params(eqn.params) == eqn.params
        assert eqn.effects == set()
    p = Primitive("eqx_fix_with_prim_param")
    p.def_impl(lambda x, *, prim: x + prim)
    p.def_abstract_eval(lambda x, *, prim: x)
    assert float(p.bind(jnp.float32(1.0), prim=2.0)) == 3.0


def test_jax_dtypes_bfloat16_is_the_scalar_type():
    """`jax.dtypes.bfloat16` (served as `import jax` means astjax) is JAX's ml_dtypes
    scalar type: callable and usable in `isinstance` (equinox's deserialisation)."""
    import ml_dtypes

    from astjax import jax_alias
    from astjax.compat import dtypes as jax_dtypes
    assert jax_alias._jax_module().dtypes is jax_dtypes
    assert jax_dtypes.bfloat16 is ml_dtypes.bfloat16
    assert isinstance(jax_dtypes.bfloat16(1), jax_dtypes.bfloat16)
    assert jnp.array(jax_dtypes.bfloat16(2)).dtype == jnp.bfloat16


def _none_tree_vjp(out_of, ct_of, sz):
    """A custom_vjp of one argument `(None, x)` whose output holds None nodes: `out_of(y)`
    builds the output around `y = 2x`, `ct_of(g)` bwd's cotangent for the argument."""
    def fn(a):
        return out_of(a[1] * 2.0)

    def fwd(a):
        if sz:
            a = jax.tree_util.tree_map(lambda p: p.value, a)
        return fn(a), None

    def bwd(_, ct):
        y_ct = [leaf for leaf in jax.tree_util.tree_leaves(ct)][0]
        return ct_of(y_ct * 3.0)

    f = jax.custom_vjp(fn)
    f.defvjp(fwd, bwd, symbolic_zeros=sz)
    return lambda x: jax.tree_util.tree_leaves(f((None, x)))[0]


@pytest.mark.parametrize("sz", [False, True])
@pytest.mark.parametrize("out_of,ct_of", [
    (lambda y: (None, y), lambda g: ((None, g),)),
    (lambda y: ((None, None), [y]), lambda g: ((None, g),)),
    (lambda y: y, lambda g: [(None, g)]),            # a list of one entry per argument
    (lambda y: y, lambda g: ((g, g),)),   # a leaf over the None node: nothing (as JAX)
])
def test_bwd_cotangents_beside_none_nodes(out_of, ct_of, sz):
    """bwd's `(None, ct)` for an argument `(None, x)`: the None is the argument's own
    empty node, so `ct` is x's cotangent (JAX's reading). astjax flattened the
    cotangents apart from the arguments, gave x the None (a zero) and dropped `ct`:
    a silent zero gradient through every equinox checkpointed while loop / scan."""
    g = jax.grad(_none_tree_vjp(out_of, ct_of, sz))(2.0)
    assert float(g) == 3.0


@pytest.mark.parametrize("ct_of", [lambda g: (g, g), lambda g: (None, g), lambda g: g])
def test_bwd_cotangents_of_another_structure_are_jaxs_type_error(ct_of):
    """A bwd result whose structure is not the arguments' (with None as a leaf) is
    JAX's TypeError, not a silently truncated or shifted gradient."""
    with pytest.raises(TypeError, match="custom_vjp bwd function must return a tuple"):
        jax.grad(_none_tree_vjp(lambda y: y, ct_of, False))(2.0)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("out", [lambda y: [y], lambda y: y * jnp.ones(2), lambda y: y > 0])
def test_grad_checks_its_output_after_the_jvp_rules_run(out, jit):
    """JAX's grad checks the output (one scalar, inexact) of its vjp, so a JVP rule that
    raises is the error even for a list, vector or bool output (JAX 0.10.2: the rule's
    RuntimeError; equinox's `nontraceable` under `grad(jaxpr_as_fun(...))`, which
    returns a one-element list); astjax checked the output first."""
    from astjax.extend.core import Primitive
    from astjax.interpreters import ad
    p = Primitive("eqx_fix_no_jvp")
    p.def_impl(lambda x: x)
    p.def_abstract_eval(lambda x: x)

    def rule(primals, tangents):
        raise RuntimeError("Detected differentiation")
    ad.primitive_jvps[p] = rule
    g = jax.grad(lambda x: out(p.bind(x)))
    with pytest.raises(RuntimeError, match="Detected differentiation"):
        (jax.jit(g) if jit else g)(1.0)


@pytest.mark.parametrize("fn,text", [
    (lambda x: x[None], "b:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a"),
    (lambda x: x[:, None], "b:f32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] a"),
    (lambda x: jnp.expand_dims(x, 0), "b:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a"),
    (lambda x: jax.lax.expand_dims(x, (0, 2)),
     "b:f32[1,3,1] = broadcast_in_dim[broadcast_dimensions=(1,)] a"),
])
def test_new_axes_are_jaxs_broadcast_in_dim(fn, text):
    """`x[None]`, `jnp.expand_dims`, `lax.expand_dims` stage one `broadcast_in_dim`, as
    JAX 0.10.2 prints them (equinox's `test_make_jaxpr` counts the equations); astjax
    staged a `reshape` (or its own `expand_dims` primitive, which JAX does not have)."""
    eqns = str(jax.make_jaxpr(fn)(jnp.ones(3))).splitlines()[1:-1]
    assert [e.strip() for e in eqns] == [text]


def _eager_jvp_types(fn, primals, tangents):
    out = jax.jvp(fn, primals, tangents)
    # (JAX's result of an extension primitive's impl is its `TypedFloat`, a float)
    return [("float" if isinstance(v, float) else type(v).__name__, float(v))
            for v in jax.tree_util.tree_leaves(out)]


def _custom_jvp_square_plus_one():
    @jax.custom_jvp
    def f(x):
        return x ** 2 + 1

    @f.defjvp
    def f_jvp(primals, tangents):
        return primals[0] ** 2 + 1, tangents[0] ** 2
    return f


def _custom_jvp_calling_itself():
    @jax.custom_jvp
    def f(x):
        return x ** 2 + 1

    @f.defjvp
    def f_jvp(primals, tangents):   # (equinox's filter_custom_jvp tests: the primal out
        return f(primals[0]), tangents[0] ** 2   # is the function itself, called)
    return f


def _extension_identity():
    from astjax.extend.core import Primitive
    from astjax.interpreters import ad
    p = Primitive("eqx_fix_identity_with_jvp")
    p.def_impl(lambda x: x)
    p.def_abstract_eval(lambda x: x)
    ad.primitive_jvps[p] = lambda primals, tangents: (p.bind(*primals), tangents[0])
    return p.bind


@pytest.mark.parametrize("make,primals,tangents,expected", [
    # (JAX 0.10.2's eager results, types and values)
    (lambda: lambda x: x, (2.0,), (3.0,), [("float", 2.0), ("float", 3.0)]),
    (lambda: lambda x: (x, x * 2), (2.0,), (3.0,),
     [("float", 2.0), ("Array", 4.0), ("float", 3.0), ("Array", 6.0)]),
    (_custom_jvp_square_plus_one, (2.0,), (3.0,), [("float", 5.0), ("float", 9.0)]),
    (lambda: (lambda f: lambda x: f(f(x)))(_custom_jvp_square_plus_one()), (2.0,), (3.0,),
     [("float", 26.0), ("float", 81.0)]),
    (_custom_jvp_square_plus_one, (jnp.float32(2.0),), (jnp.float32(3.0),),
     [("Array", 5.0), ("Array", 9.0)]),
    (_extension_identity, (1.0,), (1.0,), [("float", 1.0), ("float", 1.0)]),
    (_custom_jvp_calling_itself, (2.0,), (3.0,), [("float", 5.0), ("float", 9.0)]),
    (lambda: (lambda f: lambda x: f(x) * 2)(_custom_jvp_calling_itself()), (2.0,), (3.0,),
     [("Array", 10.0), ("Array", 18.0)]),
    (lambda: lambda x: jax.jit(lambda y: y)(x), (2.0,), (3.0,), [("Array", 2.0), ("Array", 3.0)]),
    (lambda: lambda x: (x * 2, 1.5), (jnp.ones(()),), (jnp.ones(()),),
     [("Array", 2.0), ("float", 1.5), ("Array", 2.0), ("Array", 0.0)]),
    (lambda: lambda x: (x, jnp.asarray(1.5)), (2.0,), (3.0,),
     [("float", 2.0), ("Array", 1.5), ("float", 3.0), ("Array", 0.0)]),
])
def test_eager_jvp_keeps_the_python_values_jax_keeps(make, primals, tangents, expected):
    """JAX's eager jvp runs op by op on the values as passed: an input passed through, a
    Python constant returned, and what a custom_jvp rule or an extension primitive's
    JVP rule returns run on such values, come back as those Python objects (equinox's `filter_custom_jvp` tests and
    `nondifferentiable_backward` compare with `typematch=True`); astjax's compiled
    program made them Arrays."""
    assert _eager_jvp_types(make(), primals, tangents) == expected


def test_linearize_returns_a_pytree_jit_can_return():
    """`linearize`'s f_jvp is a `Partial` whose leaves are the residuals, as JAX's, so a
    jitted function may return it (equinox's `test_speed_buffer_while` returns
    `jax.linearize(loop, xs)` from `jit(vmap(...))`); astjax's was a closure, which
    `jit` refused as an output that is not an array."""
    f = lambda x: jnp.sin(x) * x
    y, f_jvp = jax.jit(lambda x: jax.linearize(f, x))(jnp.arange(3.0))
    assert type(f_jvp).__name__ == "Partial" and jax.tree_util.tree_leaves(f_jvp)
    want = jnp.sin(jnp.arange(3.0)) + jnp.arange(3.0) * jnp.cos(jnp.arange(3.0))
    assert jnp.allclose(f_jvp(jnp.ones(3)), want)
    assert jnp.allclose(y, f(jnp.arange(3.0)))
