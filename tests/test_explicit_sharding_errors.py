"""JAX 0.10.2's ShardingTypeError for operations mixing incompatible layouts over
Explicit mesh axes (`jax.make_mesh`'s default), outside and inside `jit`, and the
combinations JAX accepts. The messages are JAX's (recorded by running the same
operations on JAX 0.10.2 with 4 CPU devices)."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.sharding import NamedSharding, PartitionSpec as P, ShardingTypeError

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


@pytest.fixture(scope="module")
def arrs():
    mesh = jax.make_mesh((2, 2), ("x", "y"))
    a = np.arange(16, dtype=np.float32).reshape(4, 4)
    return {k: jax.device_put(a, NamedSharding(mesh, s)) for k, s in
            [("x", P("x")), ("y", P("y")), ("rep", P()), ("ny", P(None, "y"))]}


# (case, JAX 0.10.2's message, or None: JAX accepts it, with this result spec)
ERRORS = [
    ("add", lambda d: d["x"] + d["y"],
     r"add got incompatible shardings for broadcasting: \('x', None\), \('y', None\)\."),
    ("mul", lambda d: d["x"] * d["y"], "mul got incompatible shardings for broadcasting"),
    ("jit_add", lambda d: jax.jit(lambda u, v: u + v)(d["x"], d["y"]),
     "add got incompatible shardings for broadcasting"),
    ("jit_chain", lambda d: jax.jit(lambda u, v: jnp.sin(u) * 2 + v)(d["x"], d["y"]),
     "add got incompatible shardings for broadcasting"),
    ("matmul_contracting", lambda d: d["ny"] @ d["x"],
     r"dot_general requires contracting dimensions to have consistent sharding, got "
     r"\('y',\) and \('x',\)\."),
    ("where", lambda d: jnp.where(d["x"] > 1, d["x"], d["y"]),
     "select cases must have the same shardings"),
    ("concatenate", lambda d: jnp.concatenate([d["x"], d["y"]]),
     "All operands should have the same sharding"),
]

ACCEPTED = [
    ("add_replicated", lambda d: d["x"] + d["rep"], "P('x', None)"),
    ("add_other_dim", lambda d: d["x"] + d["ny"], "P('x', 'y')"),
    ("matmul_xx", lambda d: d["x"] @ d["x"], "P('x', None)"),
    ("matmul_xy", lambda d: d["x"] @ d["y"], "P('x', None)"),
]


@pytest.mark.parametrize("name,fn,msg", ERRORS, ids=[e[0] for e in ERRORS])
def test_incompatible_explicit_layouts_raise(arrs, name, fn, msg):
    with pytest.raises(ShardingTypeError, match=msg):
        fn(arrs)


@pytest.mark.parametrize("name,fn,spec", ACCEPTED, ids=[e[0] for e in ACCEPTED])
def test_compatible_explicit_layouts_pass(arrs, name, fn, spec):
    out = fn(arrs)
    assert repr(out.sharding.spec) == spec
    np.testing.assert_allclose(np.asarray(out), np.asarray(fn({k: np.asarray(v) for k, v in
                                                               arrs.items()})), rtol=1e-6)


def test_auto_axes_stay_lenient():
    # on Auto axes JAX lets the partitioner choose a layout: no error
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))
    a = np.ones((4, 4), np.float32)
    u = jax.device_put(a, NamedSharding(mesh, P("x")))
    v = jax.device_put(a, NamedSharding(mesh, P("y")))
    np.testing.assert_allclose(np.asarray(u + v), 2 * a)
