"""Sharding in types costs nothing where no mesh has an Explicit axis: the layout
rules (`codegen/explicit.py`'s `propagate`, run by every `grad`'s `layouts_of` and
every partitioned `jit`) visit no equation until such a mesh has been made
(`sharding_impls.explicit_meshes`), and do visit them once one has."""
import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import sharding_impls
from astjax.codegen import explicit


class _Visits(dict):
    """`explicit.NESTED`, counting the equations the rules look at (one lookup each)."""
    visits = 0

    def get(self, *args):
        type(self).visits += 1
        return super().get(*args)


def _program(x):
    def loss(v):
        y = jnp.sin(v) * 2
        return jax.lax.fori_loop(0, 3, lambda i, c: c + jnp.cos(c), y).sum()
    return jax.grad(loss)(x) + 1


@pytest.mark.parametrize("made", [0, 1])
def test_rules_visit_equations_only_once_an_explicit_mesh_exists(monkeypatch, made):
    monkeypatch.setattr(sharding_impls, "explicit_meshes", [made])
    monkeypatch.setattr(explicit, "NESTED", _Visits(explicit.NESTED))
    _Visits.visits = 0
    x = np.linspace(-1, 1, 4, dtype=np.float32)
    got = jax.jit(lambda v: _program(v))(x)      # (a fresh function: staged here)
    np.testing.assert_allclose(np.asarray(got), np.asarray(jax.jit(_program)(x)), rtol=1e-6)
    assert (_Visits.visits > 0) == bool(made), _Visits.visits


def test_meshes_with_an_explicit_axis_are_counted():
    before = sharding_impls.explicit_meshes[0]
    Auto, Explicit = jax.sharding.AxisType.Auto, jax.sharding.AxisType.Explicit
    jax.make_mesh((1,), ("a",), axis_types=(Auto,))
    jax.sharding.AbstractMesh((2,), ("a",), axis_types=(Auto,))
    assert sharding_impls.explicit_meshes[0] == before
    jax.make_mesh((1,), ("a",), axis_types=(Explicit,))
    jax.sharding.AbstractMesh((2, 1), ("a", "b"), axis_types=(Auto, Explicit))
    assert sharding_impls.explicit_meshes[0] == before + 2
