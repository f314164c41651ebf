"""What flax 0.12.8's own test suite (its sdist's tests/, run on astjax with
`python -m astjax run -m pytest FILE`) found, each as a minimal regression test."""
import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import lax


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
