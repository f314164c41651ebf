"""Cases for `jax.image` (`resize`, `scale_and_translate`: every method, antialiased
or not, up- and downsampling, integer inputs, gradients) and a recorder of JAX's
values (see README.md).

Run with JAX 0.10.2: `/work/jaxref/bin/python tests/oracle/record_image.py` writes
image.json."""
import json
import sys
from pathlib import Path

import numpy as np

_R = np.random.RandomState(5)
IMG = _R.randn(2, 7, 6, 3).round(3).astype(np.float32)
SMALL = _R.randn(5, 4).round(3).astype(np.float32)
INTS = _R.randint(0, 255, size=(6, 5)).astype(np.uint8)
METHODS = ("nearest", "linear", "cubic", "cubic-pytorch", "lanczos3", "lanczos5", "area")

# (function, input name, args, kwargs)
RESIZE = []
for method in METHODS:
    for antialias in (True, False):
        for shape in ((2, 4, 3, 3), (2, 11, 9, 3), (2, 3, 10, 3), (2, 7, 6, 3), (1, 5, 6, 2)):
            RESIZE.append(("resize", "IMG", (shape, method), {"antialias": antialias}))
    RESIZE.append(("resize", "INTS", ((9, 3), method), {}))
    RESIZE.append(("resize", "SMALL", ((0, 4), method), {}))
SCALE = []
_F = lambda v: np.array(v, np.float32)  # noqa: E731 (JAX takes arrays, not lists)
for method in METHODS[1:]:
    for antialias in (True, False):
        SCALE.append(("scale_and_translate", "SMALL", ((8, 6), (0, 1), _F([1.7, 1.3]),
                                                       _F([0.4, -0.7]), method),
                      {"antialias": antialias}))
        SCALE.append(("scale_and_translate", "SMALL", ((3, 4), (0,), _F([0.55]),
                                                       _F([0.25]), method), {"antialias": antialias}))
CASES = RESIZE + SCALE
# gradients of sum(resize(x) * weights) in x, and of scale_and_translate in scale and
# translation: (method, antialias)
GRADS = [(m, a) for m in METHODS[1:] for a in (True, False)]
GRAD_W = _R.randn(3, 6).round(3).astype(np.float32)


def inputs():
    return {"IMG": IMG, "SMALL": SMALL, "INTS": INTS}


def grad_fns(image):
    """(d/dx of a weighted sum of resize(x), d/d(scale, translation) of one of
    scale_and_translate) built on the given `image` module, for each GRADS case."""
    import numpy as onp
    out = []
    for method, antialias in GRADS:
        def f(x, method=method, antialias=antialias):
            return (image.resize(x, (3, 6), method, antialias=antialias) * GRAD_W).sum()

        def g(st, method=method, antialias=antialias):
            y = image.scale_and_translate(SMALL, (8, 6), (0, 1), st[0], st[1], method,
                                          antialias=antialias)
            return (y * onp.arange(48, dtype=onp.float32).reshape(8, 6)).sum()
        out.append((f, g))
    return out


def encode(y):
    y = np.asarray(y)
    return {"dtype": str(y.dtype), "shape": list(y.shape), "v": y.ravel().tolist()}


def record(path):
    import jax
    import jax.image as image
    import jax.numpy as jnp
    data = {"cases": [], "grads": []}
    for fn, name, args, kw in CASES:
        data["cases"].append(encode(getattr(image, fn)(jnp.asarray(inputs()[name]), *args,
                                                       **kw)))
    st = np.array([[1.7, 1.3], [0.4, -0.7]], np.float32)
    for f, g in grad_fns(image):
        data["grads"].append([encode(jax.grad(f)(jnp.asarray(SMALL))),
                              encode(jax.grad(g)(jnp.asarray(st)))])
    Path(path).write_text(json.dumps(data))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("image.json"))
