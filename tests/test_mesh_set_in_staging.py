"""`jax.set_mesh` / `jax.sharding.get_mesh` inside a staged function: JAX 0.10.2
raises ValueError ("`set_mesh` can only be used outside of `jax.jit`.") under `jit`,
`grad`, `vmap`, `eval_shape`, `make_jaxpr` and in a `lax.cond` branch -- any trace --,
and `get_mesh` there suggests `get_abstract_mesh()`; outside, `set_mesh(None)` sets no
mesh and a non-Mesh is a ValueError. astjax raises the same, located at the user's
line (messages checked against JAX 0.10.2 with 4 CPU devices)."""
import warnings

import numpy as np
import pytest

import astjax as jax
from astjax.errors import AstjaxError

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")

SET = "`set_mesh` can only be used outside of `jax.jit`."
GET = ("`get_mesh` can only be used outside of `jax.jit`. Maybe you want "
       "`jax.sharding.get_abstract_mesh()`?")


@pytest.fixture(scope="module")
def mesh():
    return jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)


def _sets(mesh):
    def f(x):
        with jax.set_mesh(mesh):
            return (x * 2).sum()
    return f


_X = np.arange(8.0, dtype=np.float32).reshape(4, 2)
_STAGED = {
    "jit": lambda f: jax.jit(f)(_X),
    "grad": lambda f: jax.grad(f)(_X),
    "vmap": lambda f: jax.vmap(f)(_X),
    "eval_shape": lambda f: jax.eval_shape(f, _X),
    "make_jaxpr": lambda f: jax.make_jaxpr(f)(_X),
    "cond_branch": lambda f: jax.jit(lambda x: jax.lax.cond(True, f, lambda v: v.sum(), x))(
        _X),
}


@pytest.mark.parametrize("how", sorted(_STAGED))
def test_set_mesh_inside_a_staged_function_is_jax_value_error(mesh, how):
    with pytest.raises(ValueError) as info:
        _STAGED[how](_sets(mesh))
    assert isinstance(info.value, AstjaxError) and info.value.message == SET
    assert info.value.loc is not None and info.value.loc.file == __file__


def test_set_mesh_as_a_global_setter_inside_jit_raises_and_changes_nothing(mesh):
    def f(x):
        jax.set_mesh(mesh)
        return x * 2
    with pytest.raises(ValueError, match="can only be used outside"):
        jax.jit(f)(_X)
    assert jax.sharding.get_mesh().empty


def test_get_mesh_inside_jit_is_jax_value_error(mesh):
    def f(x):
        jax.sharding.get_mesh()
        return x
    with jax.set_mesh(mesh), pytest.raises(ValueError) as info:
        jax.jit(f)(_X)
    assert info.value.message == GET
    # (get_abstract_mesh is the staged-code query, as in JAX)
    with jax.set_mesh(mesh):
        jax.jit(lambda x: (jax.sharding.get_abstract_mesh(), x)[1])(_X)


def test_outside_staging_set_mesh_runs_and_none_means_no_mesh(mesh):
    assert float(_sets(mesh)(_X)) == 56.0
    with jax.set_mesh(mesh):
        assert jax.sharding.get_mesh() is mesh
        with jax.set_mesh(None):
            assert jax.sharding.get_mesh().empty
        assert jax.sharding.get_mesh() is mesh
    with pytest.raises(ValueError, match=r"Expected mesh of type `jax.sharding.Mesh`. Got "
                                         r"<class 'str'>"):
        jax.set_mesh("m")


def test_legacy_mesh_context_stays_usable_inside_jit(mesh):
    def f(x):
        with mesh:
            return (x * 2).sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)   # (JAX's, for `with mesh:`)
        assert float(jax.jit(f)(_X)) == 56.0
