"""Leftovers of JAX's surface (issue 13): `jax_num_cpu_devices` (honoured when set
before the first operation, a RuntimeError after, as in JAX) and
`jax.sharding.auto_axes` / `explicit_axes` (the mesh axes' types switched inside;
values recorded from JAX 0.10.2's explicit-sharding tutorial)."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import astjax
from astjax import sharding as jsharding
from astjax.sharding import AxisType, PartitionSpec as P


def _run(code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300)


def test_num_cpu_devices_before_and_after_backend():
    out = _run("""
        import astjax
        astjax.config.update('jax_num_cpu_devices', 3)
        print(len(astjax.devices()))
        astjax.config.update('jax_num_cpu_devices', 3)   # the same value: accepted
        try:
            astjax.config.update('jax_num_cpu_devices', 2)
        except RuntimeError as e:
            print('RuntimeError', 'before backends are initialized' in str(e))
        print(astjax.config.jax_num_cpu_devices)
    """)
    assert out.stdout.split() == ["3", "RuntimeError", "True", "3"], out.stderr


@pytest.fixture
def explicit_mesh():
    if len(astjax.devices()) < 4:
        pytest.skip("needs 4 CPU devices")
    mesh = astjax.make_mesh((2, 2), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
    with jsharding.set_mesh(mesh):
        yield mesh


def test_auto_axes_outside_jit(explicit_mesh):
    x = jsharding.reshard(np.arange(16).reshape(4, 4), P("X", None))
    y = jsharding.reshard(np.arange(16).reshape(4, 4), P(None, "X"))
    seen = []

    @jsharding.auto_axes
    def add(a, b):
        seen.append(str(jsharding.get_abstract_mesh()))
        return a + b

    out = add(x, y, out_sharding=P("X", None))
    # JAX 0.10.2: "axis_types=(Auto, Auto)" inside, "int32[4@X,4]" after
    assert "axis_types=(Auto, Auto)" in seen[0]
    assert str(astjax.typeof(out)) == "int32[4@X,4]"
    np.testing.assert_array_equal(np.asarray(out), 2 * np.arange(16).reshape(4, 4))
    assert "Explicit, Explicit" in str(jsharding.get_abstract_mesh())


def test_auto_axes_needs_out_sharding(explicit_mesh):
    with pytest.raises(TypeError, match="out_sharding"):
        jsharding.auto_axes(lambda a: a)(np.ones(4))


def test_explicit_axes_needs_a_mesh():
    with pytest.raises(ValueError, match="Context mesh cannot be empty"):
        jsharding.explicit_axes(lambda a: a, in_sharding=P())(np.ones(4))


def test_src_lib_names():
    out = _run("""
        import astjax
        astjax.install_as_jax()
        import jaxlib
        from jax._src.lib import xla_client, version, version_str, jaxlib_extension_version
        from jax._src import lib
        print(version == tuple(map(int, jaxlib.__version__.split('.')[:3])),
              version_str == jaxlib.__version__, jaxlib_extension_version > 0,
              hasattr(xla_client, 'Client'), isinstance(astjax.devices()[0], lib.Device))
    """)
    assert out.stdout.split() == ["True"] * 5, out.stderr


def test_extension_primitive_without_impl_raises_not_implemented():
    """JAX's docs check `type is NotImplementedError` when an extension primitive
    without an evaluation rule is called eagerly."""
    from astjax.extend import core as xcore
    p = xcore.Primitive("no_impl_yet")
    with pytest.raises(NotImplementedError) as info:
        p.bind(1.0, 2.0)
    assert type(info.value) is NotImplementedError
    assert "Evaluation rule for 'no_impl_yet' not implemented" in str(info.value)


def test_extension_primitive_missing_rules_raise_not_implemented():
    from astjax.extend import core as xcore
    p = xcore.Primitive("mul_add_no_rules")
    p.def_impl(lambda x, y: x * y + y)
    p.def_abstract_eval(lambda x, y: x)

    def f(x, y):
        return p.bind(x, y)
    for transform, what in ((lambda: astjax.jvp(f, (2.0, 1.0), (1.0, 1.0)), "Differentiation"),
                            (lambda: astjax.vmap(f)(np.ones(3), np.ones(3)), "Batching")):
        with pytest.raises(NotImplementedError) as info:
            transform()
        assert type(info.value) is NotImplementedError
        assert str(info.value) == f"{what} rule for 'mul_add_no_rules' not implemented"


def test_extension_primitive_without_abstract_eval_under_jit():
    from astjax.extend import core as xcore
    p = xcore.Primitive("no_abstract_eval")
    p.def_impl(lambda x: x)
    with pytest.raises(NotImplementedError) as info:
        astjax.jit(lambda x: p.bind(x))(1.0)
    assert type(info.value) is NotImplementedError
    assert str(info.value) == "Abstract evaluation for 'no_abstract_eval' not implemented"
