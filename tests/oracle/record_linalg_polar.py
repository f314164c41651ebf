"""Cases for `jax.scipy.linalg.polar` (QDWH, the default, and the SVD method) and a
recorder of JAX 0.10.2's values. Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_linalg_polar.py` writes linalg_polar.json.

`CASES`: (name, function of (module namespace, *arrays), input names, 64-bit); a case
records its outputs, or the class name of what JAX raises."""
import json
import sys
from pathlib import Path

import numpy as np


def inputs():
    r = np.random.RandomState(11)
    tall = r.randn(5, 3)
    wide = r.randn(3, 5)
    sq = r.randn(4, 4)
    c = r.randn(4, 3) + 1j * r.randn(4, 3)
    return {
        "tall": tall.astype(np.float32), "tall64": tall,
        "wide": wide.astype(np.float32),
        "sq": sq.astype(np.float32),
        "c": c.astype(np.complex64),
        "batch": r.randn(2, 3, 4, 3).astype(np.float32),
        "ill": (tall @ np.diag([1.0, 1e-3, 1e-6])).astype(np.float32),
        "dt": r.randn(5, 3).astype(np.float32),
    }


def _jvp(m, side="right", method="qdwh"):
    return lambda x, t: tuple(m.jax.jvp(lambda a: m.jsp.linalg.polar(a, side, method=method),
                                        (x,), (t,))[1])


CASES = [
    ("qdwh_tall", lambda m, x: m.jsp.linalg.polar(x), ["tall"], False),
    ("qdwh_tall_x64", lambda m, x: m.jsp.linalg.polar(x), ["tall64"], True),
    ("qdwh_wide_left", lambda m, x: m.jsp.linalg.polar(x, side="left"), ["wide"], False),
    ("qdwh_complex", lambda m, x: m.jsp.linalg.polar(x), ["c"], False),
    ("qdwh_batch", lambda m, x: m.jsp.linalg.polar(x), ["batch"], False),
    # JAX's polar raises for any `eps` (it reaches qdwh's static argument as a tracer);
    # astjax's passes it on: its value is recorded from JAX's qdwh (`m.polar_eps`)
    ("qdwh_eps", lambda m, x: m.polar_eps(x, 1e-3), ["ill"], False),
    ("qdwh_max_iterations_unused",
     lambda m, x: m.jsp.linalg.polar(x, max_iterations=1), ["tall"], False),
    ("qdwh_jit", lambda m, x: m.jax.jit(m.jsp.linalg.polar)(x), ["tall"], False),
    ("qdwh_jvp", lambda m, x, t: _jvp(m)(x, t), ["tall", "dt"], False),
    ("svd_right", lambda m, x: m.jsp.linalg.polar(x, method="svd"), ["tall"], False),
    ("svd_left", lambda m, x: m.jsp.linalg.polar(x, "left", method="svd"), ["tall"], False),
    ("svd_jvp", lambda m, x, t: _jvp(m, method="svd")(x, t), ["tall", "dt"], False),
    ("qdwh_square_left", lambda m, x: m.jsp.linalg.polar(x, side="left"), ["sq"], False),
    ("qdwh_wide_right", lambda m, x: m.jsp.linalg.polar(x), ["wide"], False),
    ("qdwh_tall_left", lambda m, x: m.jsp.linalg.polar(x, side="left"), ["tall"], False),
    ("polar_eps_raises", lambda m, x: m.jsp.linalg.polar(x, eps=1e-3), ["tall"], False),
    ("bad_method", lambda m, x: m.jsp.linalg.polar(x, method="newton"), ["tall"], False),
    ("bad_side", lambda m, x: m.jsp.linalg.polar(x, side="up"), ["tall"], False),
    ("vector", lambda m, x: m.jsp.linalg.polar(x[0]), ["tall"], False),
]


def encode(x):
    x = np.asarray(x)
    return {"dtype": str(x.dtype), "shape": list(x.shape), "re": np.real(x).ravel().tolist(),
            "im": np.imag(x).ravel().tolist() if np.iscomplexobj(x) else None}


def decode(w):
    re = np.array(w["re"], np.float64).reshape(w["shape"])
    return (re + 1j * np.array(w["im"]).reshape(w["shape"])) if w["im"] is not None else re


def record(path):
    import types
    import jax
    import jax.scipy.linalg  # noqa: F401
    assert jax.__version__ == "0.10.2", jax.__version__
    m = types.SimpleNamespace(jax=jax, jsp=jax.scipy,
                              polar_eps=lambda x, eps: jax.lax.linalg.qdwh(x, eps=eps)[:2])
    ins = inputs()
    out = {}
    for name, fn, args, x64 in CASES:
        with jax.enable_x64(x64):
            try:
                res = fn(m, *[ins[a] for a in args])
                out[name] = [encode(r) for r in res]
            except Exception as e:  # noqa: BLE001  (what JAX raises is the record)
                out[name] = {"error": type(e).__name__, "bases": [
                    c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins"]}
    Path(path).write_text(json.dumps(out))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("linalg_polar.json"))
