"""Interop: JAX programs run unchanged with `import astjax as jax`, and foreign
array types (anything with __array__, shape and a numeric dtype) are accepted."""
import os
import subprocess
import sys

import numpy as np

import astjax
import astjax.numpy as jnp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Printed by `python examples/jax_program.py --jax` with jax 0.10.2.
EXPECTED = 'loss 0.9704674482345581 0.2655014395713806\nsoftmax [0.09003057 0.24472848 0.66524094]\nfori 45\nvmap (8, 4)\neinsum (8, 4)\nhess [[ 0.  0.  0.]\n [ 0.  6.  0.]\n [ 0.  0. 12.]]\nwhere 5.3851676\nscan (Array(6., dtype=float32), Array([0., 0., 2., 9.], dtype=float32))\ncond 6\njacrev [[0.5403023 0.       ]\n [0.        0.5403023]]\nargmax [0 0 0 0 0 0 0 0]\nat [0. 3. 0. 0.]\ntree (3, 4)\n{ lambda ; a:f32[3]. let\n    b:f32[3] = mul a 2.0:f32[]\n    c:f32[] = reduce_sum[axes=(0,) out_sharding=None] b\n  in (c,) }\n'


def test_jax_program_output_matches_jax():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "jax_program.py")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout == EXPECTED


class ForeignArray:
    """Stands for another library's array type."""

    def __init__(self, a):
        self._a = np.asarray(a)
        self.shape, self.dtype = self._a.shape, self._a.dtype

    def __array__(self, dtype=None, copy=None):
        return self._a if dtype is None else self._a.astype(dtype)


def test_foreign_array_arguments():
    x = ForeignArray(np.arange(3.0, dtype=np.float32))
    out = astjax.jit(lambda v: jnp.sum(v * 2))(x)
    assert float(out) == 6.0
