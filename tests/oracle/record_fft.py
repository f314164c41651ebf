"""Cases for `jax.numpy.fft` where JAX's result is its own (hfft/ihfft under a
`norm`, dtypes) and a recorder of JAX's values (see README.md).

`CASES` is a list of (function, input, kwargs); inputs are nested lists of float64
(complex inputs as [real, imag] pairs under the key "complex"). Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_fft.py` writes fft.json."""
import json
import sys
from pathlib import Path

import numpy as np

_R = np.random.RandomState(3)
REAL = _R.randn(2, 6).round(3).tolist()
CPLX = {"complex": [_R.randn(2, 5).round(3).tolist(), _R.randn(2, 5).round(3).tolist()]}

CASES = []
for norm in (None, "backward", "ortho", "forward"):
    CASES.append(("hfft", CPLX, {"norm": norm}))
    CASES.append(("hfft", CPLX, {"norm": norm, "n": 7}))
    CASES.append(("ihfft", REAL, {"norm": norm}))
    CASES.append(("ihfft", REAL, {"norm": norm, "n": 4, "axis": 0}))
    CASES.append(("irfft2", CPLX, {"norm": norm, "s": (3, 6)}))
    CASES.append(("rfftn", REAL, {"norm": norm, "axes": (0,)}))


def decode(x):
    if isinstance(x, dict):
        re, im = x["complex"]
        return np.asarray(re) + 1j * np.asarray(im)
    return np.asarray(x)


def encode(y):
    y = np.asarray(y)
    return {"dtype": str(y.dtype), "shape": list(y.shape),
            "re": np.real(y).ravel().tolist(), "im": np.imag(y).ravel().tolist()}


def record(path):
    import jax.numpy as jnp
    out = []
    for name, x, kw in CASES:
        y = getattr(jnp.fft, name)(jnp.asarray(decode(x), jnp.complex64 if isinstance(x, dict)
                                               else jnp.float32), **kw)
        out.append(encode(y))
    Path(path).write_text(json.dumps(out))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("fft.json"))
