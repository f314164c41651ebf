"""What flax 0.12.8's own test suite (its sdist's tests/, run on astjax with
`python -m astjax run -m pytest FILE`) found in its fourth run, each as a minimal
regression test (no flax needed). The earlier runs' tests are in
tests/test_flax_suite_fixes.py."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


@pytest.mark.parametrize("act, size", [(astjax.nn.relu, 1024), (astjax.nn.relu6, 2048)])
def test_relu_lowers_to_max_min_as_jax_flops(act, size):
    """flax's `tabulate(compute_flops=True)` reads `jit(f).lower(...).cost_analysis()`:
    JAX's relu is a `custom_jvp` of `maximum(x, 0)` (relu6 also `minimum(., 6)`), one
    flop per element each; astjax's selects on `x > 0` and NaN counted 5 per element."""
    x = jnp.ones((1, 1024))
    assert astjax.jit(act).lower(x).cost_analysis()["flops"] == size
    jaxpr = str(astjax.make_jaxpr(act)(x))
    assert "custom_jvp_call" in jaxpr and "select" not in jaxpr


@pytest.mark.parametrize("act, inside", [(astjax.nn.relu, lambda x: x > 0),
                                         (astjax.nn.relu6, lambda x: (x > 0) & (x < 6))])
def test_relu_values_and_derivatives_kept(act, inside):
    """JAX's values (NaN stays NaN) and derivatives (0 at the kinks and at NaN), eager,
    under `jit`, `grad`, `jvp` and `vmap`."""
    x = np.array([np.nan, -1.0, 0.0, 2.0, 6.0, 7.0], np.float32)
    want = np.minimum(np.maximum(x, 0), 6.0 if act is astjax.nn.relu6 else np.inf)
    for f in (act, astjax.jit(act), astjax.vmap(act)):
        np.testing.assert_array_equal(f(x), want)
    g = astjax.grad(lambda x: act(x).sum())(x)
    np.testing.assert_array_equal(g, np.where(inside(x), 1.0, 0.0))
    _, t = astjax.jvp(act, (x,), (np.full_like(x, 3.0),))
    np.testing.assert_array_equal(t, np.where(inside(x), 3.0, 0.0))
    kept = jnp.int32 if act is astjax.nn.relu else jnp.float32   # (6.0 promotes)
    assert act(3).dtype == kept and int(act(-3)) == 0


# --- `import orbax.checkpoint` (flax's checkpoints_test, nnx's integration_test): the
# modules and attributes of JAX's it reads at import and in a save / restore


def test_experimental_pjit_is_jit_with_jaxs_deprecation():
    """`jax.experimental.pjit.pjit` (orbax's test utilities import it): `jit` of the
    same arguments, with JAX's DeprecationWarning."""
    from astjax.compat.experimental.pjit import pjit
    with pytest.warns(DeprecationWarning, match="use `jax.jit` instead"):
        f = pjit(lambda x, n: x * n, static_argnums=1, donate_argnums=None)
    np.testing.assert_array_equal(f(jnp.arange(3.0), 2), [0.0, 2.0, 4.0])
    with pytest.warns(DeprecationWarning):
        g = pjit(lambda x, y: x, keep_unused=True)
    assert float(g(1.0, 2.0)) == 1.0


def test_extend_ifrt_programs_is_jaxlibs():
    """`from jax.extend import ifrt_programs` (orbax's Pathways handler, at import):
    jaxlib's module, with its program makers."""
    from astjax.extend import ifrt_programs
    assert hasattr(ifrt_programs.ifrt_programs, "make_plugin_program")


def test_src_distributed_global_state_reads_astjax_distributed():
    """orbax asks `jax._src.distributed.global_state.client is not None` on every save:
    alone, no client, process 0 of 1."""
    from astjax.compat._src import distributed
    gs = distributed.global_state
    assert gs.client is None and gs.service is None and gs.coordinator_address is None
    assert (gs.process_id, gs.num_processes) == (0, 1)
    assert astjax.distributed.is_initialized() is False


def test_sharding_addressable_device_assignment():
    """orbax's restore asks `d in sharding._addressable_device_assignment`: JAX's
    device-assignment order (a mesh's devices row-major), this process's devices."""
    from astjax.sharding import Mesh, NamedSharding, PartitionSpec, SingleDeviceSharding
    dev = astjax.devices()[0]
    assert SingleDeviceSharding(dev)._addressable_device_assignment == (dev,)
    mesh = Mesh(np.array(astjax.devices()[:1]).reshape(1, 1), ("a", "b"))
    s = NamedSharding(mesh, PartitionSpec("a"))
    assert s._device_assignment == s._addressable_device_assignment == (dev,)


def test_device_put_to_a_default_layout_format_uses_its_sharding():
    """`device_put(x, Format(None, sharding))` (orbax's restore of each shard): the
    sharding; a non-row-major layout stays a located NotImplementedError."""
    from astjax.compat.experimental.layout import Format, Layout
    from astjax.sharding import SingleDeviceSharding
    s = SingleDeviceSharding(astjax.devices()[0])
    y = astjax.device_put(np.arange(6.0).reshape(2, 3), Format(None, s))
    assert y.sharding == s and y.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert astjax.device_put(jnp.ones(2), Format(Layout((0,)), s)).sharding == s
    with pytest.raises(NotImplementedError, match="device_put: the layout"):
        astjax.device_put(jnp.ones((2, 2)), Format(Layout((1, 0)), s))


def test_grad_of_a_constant_result_is_an_array_not_a_python_scalar():
    """flax's `nnx.value_and_grad(has_aux=True)` returns the updated state in its aux:
    a variable set to `jnp.array(-1.0)` came back as the Python float -1.0 (then
    `variable[...]` failed). A literal result of grad -- the aux, or a constant
    gradient inside `jit` -- is a staged value (an Array out of the transform), as
    JAX's tracer is."""
    def f(x):
        return (x ** 2).sum(), {"k": jnp.array(-1.0), "p": 3.0}
    (v, aux), g = astjax.value_and_grad(f, has_aux=True)(jnp.ones(3))
    assert isinstance(aux["k"], astjax.Array) and aux["k"].weak_type
    assert aux["p"] == 3.0 and type(aux["p"]) is float      # (a Python object stays one)
    g, aux = astjax.grad(f, has_aux=True)(jnp.ones(3))
    assert isinstance(aux["k"], astjax.Array) and float(aux["k"]) == -1.0

    def shape_of_constant_grad(x):
        return astjax.grad(lambda y: 2.0 * y)(x).shape
    assert astjax.jit(lambda x: jnp.zeros(shape_of_constant_grad(x)))(1.0).shape == ()


def test_custom_vjp_and_jvp_resolve_keyword_arguments_to_positions():
    """flax's fp8 ops call `out_dq(dq_type=..., lhs_scale=..., rhs_scale=..., out=y)`, a
    `custom_vjp` with `nondiff_argnums=(0,)`, and `quantized_dot(...)` leaving a
    defaulted nondiff argument out: astjax indexed the positional arguments alone
    (IndexError). As JAX, keywords and defaults are resolved to positions first; a
    keyword-only argument is JAX's TypeError."""
    import functools

    @functools.partial(astjax.custom_vjp, nondiff_argnums=(0,))
    def scaled(dtype, scale, out):
        return (out * scale).astype(dtype)
    scaled.defvjp(lambda d, s, o: (scaled(d, s, o), s), lambda d, s, g: (None, g * s))

    @functools.partial(astjax.custom_jvp, nondiff_argnums=(2,))
    def f(x, y=2.0, n=3):
        return x * y * n
    f.defjvp(lambda n, p, t: (f(*p, n), (t[0] * p[1] + t[1] * p[0]) * n))

    def loss(x):
        return (scaled(dtype=jnp.float32, scale=2.0, out=x).sum() + f(x=x).sum()
                + f(x, n=4, y=1.0).sum())
    assert float(astjax.jit(loss)(jnp.ones(3))) == 36.0
    np.testing.assert_array_equal(astjax.grad(loss)(jnp.ones(3)), [12.0] * 3)

    @astjax.custom_jvp
    def g(x, *, k):
        return x * k
    g.defjvp(lambda p, t: (p[0], t[0]))
    for call in (lambda: astjax.jit(lambda x: g(x, k=2.0))(1.0), lambda: g(1.0, k=2.0)):
        with pytest.raises(TypeError, match="could not be resolved to positions: k"):
            call()
