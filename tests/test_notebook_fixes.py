"""Differences found by running JAX's documentation notebooks under astjax
(`tests/notebooks/run.py`, issue 13), each pinned against JAX 0.10.2's behaviour."""
import pytest

import astjax
from astjax.extend.core import Primitive
from astjax.interpreters import mlir


def test_register_lowering_returns_none_as_jax():
    # jax-primitives: a cell ending in `mlir.register_lowering(...)` displays nothing
    # under JAX (its register_lowering returns None); astjax displayed the rule.
    p = Primitive("nb_fixes_noop")
    assert mlir.register_lowering(p, lambda ctx, x: [x], platform="cpu") is None
    assert mlir.register_lowering(p, lambda ctx, x: [x]) is None


def test_lax_has_no_zeros_like_array():
    # JAX 0.10.2's jax.lax has no zeros_like_array (removed upstream); the
    # jax-primitives notebook's JVP rule calls it and JAX raises AttributeError there
    # (a raises-exception cell), where astjax ran the rule.
    assert not hasattr(astjax.lax, "zeros_like_array")
    with pytest.raises(AttributeError):
        astjax.lax.zeros_like_array(1.0)


def test_cotangent_through_real_and_imag_is_not_weak():
    # autodiff_cookbook: grad of |z|^2 at a Python complex is complex64 in JAX, not
    # weakly typed (the transposes of real/imag pair the cotangent with a strong zero).
    import astjax.numpy as jnp

    def sq_abs(z):
        x, y = jnp.real(z), jnp.imag(z)
        return x ** 2 + y ** 2

    g = astjax.grad(sq_abs)(3. + 4j)
    assert (complex(g), str(g.dtype), g.weak_type) == (6 - 8j, "complex64", False)
    g = astjax.grad(lambda z: jnp.imag(z))(3. + 4j)
    assert (complex(g), g.weak_type) == (-1j, False)
    _, f_vjp = astjax.vjp(lambda z: jnp.real(z) ** 2 + 1j * jnp.imag(z), 3. + 4j)
    (ct,) = f_vjp(1. + 0j)
    assert (complex(ct), ct.weak_type) == (6 + 0j, False)
