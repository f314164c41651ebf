"""Records tests/oracle/more_jnp_names.json with JAX 0.10.2: values and errors of
`jnp.packbits`, `unpackbits`, `roots`, `histogram2d` and `histogramdd`, eagerly, under
`jit` (keyword arguments static) and under `vmap` over the first operand's axis 0.
Run `/work/jaxref/bin/python tests/oracle/record_more_jnp_names.py`;
tests/test_more_jnp_names.py replays the same CASES with astjax and compares."""
import json
from pathlib import Path

import numpy as np

# Operands: name -> (values, dtype). Keyword values named here with "@" are operands too.
OPERANDS = {
    "bits8": ([0, 0, 0, 0, 0, 1, 1, 1], "int32"),
    "bits3": ([1, 0, 1], "int32"),
    "bits11": ([1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1], "int32"),
    "bool2d": ([[True, False, True], [False, True, True], [True, True, False],
                [False, False, True]], "bool"),
    "int2d": ([[3, 0, -1, 0, 0, 2, 0, 0, 1, 1], [0, 0, 0, 4, 0, 0, 5, 0, 0, 0]], "int8"),
    "u8": ([219, 96], "uint8"),
    "u8_2d": ([[212, 150], [69, 207], [0, 255]], "uint8"),
    "f32": ([1.0, 0.0], "float32"),
    "i32u": ([1, 2], "int32"),
    "quad": ([1.0, -3.0, 2.0], "float32"),
    "cubic0": ([0.0, 0.0, 1.0, -6.0, 11.0, -6.0], "float32"),
    "zeros": ([0.0, 0.0, 0.0], "float32"),
    "intpoly": ([2, -4, 0, 2], "int32"),
    "cpoly": ([1 + 1j, 2.0, 3 - 1j], "complex64"),
    "one": ([5.0], "float32"),
    "scalar": (3.0, "float32"),
    "mat": ([[1.0, 2.0], [3.0, 4.0]], "float32"),
    "polys": ([[1.0, -3.0, 2.0], [1.0, 0.0, -4.0], [2.0, 2.0, 1.0]], "float32"),
    "x": ([0.1, 0.5, 0.9, 0.3, 1.0, 0.0, 0.7], "float32"),
    "y": ([1.0, 2.0, 3.0, 2.5, 1.5, 3.0, 2.2], "float32"),
    "xi": ([0, 1, 2, 3, 4, 5, 6], "int32"),
    "w": ([1.0, 2.0, 0.5, 3.0, 1.0, 0.0, 2.0], "float32"),
    "xedges": ([0.0, 0.25, 0.5, 1.0], "float32"),
    "xs": ([[0.1, 0.5, 0.9], [0.3, 1.0, 0.0]], "float32"),
    "ys": ([[1.0, 2.0, 3.0], [2.5, 1.5, 3.0]], "float32"),
    "pts": ([[0.1, 1.0, -2.0], [0.5, 2.0, -1.0], [0.9, 3.0, -0.1], [0.3, 2.5, 1.0],
             [1.0, 1.5, 2.0], [0.0, 3.0, -0.5]], "float32"),
    "w6": ([1.0, 2.0, 0.5, 3.0, 1.0, 2.0], "float32"),
}

# (function, operand names, keyword arguments, modes)
CASES = [
    ("packbits", ["bits8"], {}, ["eager", "jit"]),
    ("packbits", ["bits8"], {"bitorder": "little"}, ["eager", "jit"]),
    ("packbits", ["bits3"], {}, ["eager", "jit"]),
    ("packbits", ["bool2d"], {"axis": 0}, ["eager", "jit", "vmap"]),
    ("packbits", ["bool2d"], {"axis": -1, "bitorder": "little"}, ["eager", "jit", "vmap"]),
    ("packbits", ["int2d"], {"axis": 1}, ["eager", "jit"]),
    ("packbits", ["int2d"], {}, ["eager", "jit", "vmap"]),
    ("packbits", ["f32"], {}, ["eager"]),
    ("packbits", ["bits8"], {"bitorder": "middle"}, ["eager"]),
    ("unpackbits", ["u8"], {}, ["eager", "jit", "vmap"]),
    ("unpackbits", ["u8"], {"count": 11}, ["eager", "jit"]),
    ("unpackbits", ["u8"], {"count": -5}, ["eager", "jit"]),
    ("unpackbits", ["u8"], {"count": 20, "bitorder": "little"}, ["eager", "jit"]),
    ("unpackbits", ["u8_2d"], {"axis": 1}, ["eager", "jit"]),
    ("unpackbits", ["u8_2d"], {"axis": -1, "count": 12}, ["vmap"]),
    ("unpackbits", ["u8_2d"], {"axis": 0, "count": 10}, ["eager", "jit", "vmap"]),
    ("unpackbits", ["u8_2d"], {"axis": 0, "count": 0}, ["eager"]),
    ("unpackbits", ["i32u"], {}, ["eager"]),
    ("unpackbits", ["u8"], {"bitorder": "x"}, ["eager"]),
    ("roots", ["quad"], {}, ["eager"]),
    ("roots", ["cubic0"], {}, ["eager"]),
    ("roots", ["cubic0"], {"strip_zeros": False}, ["eager", "jit"]),
    ("roots", ["zeros"], {}, ["eager"]),
    ("roots", ["zeros"], {"strip_zeros": False}, ["eager", "jit"]),
    ("roots", ["intpoly"], {}, ["eager"]),
    ("roots", ["cpoly"], {"strip_zeros": False}, ["eager", "jit"]),
    ("roots", ["one"], {}, ["eager", "jit"]),
    ("roots", ["scalar"], {}, ["eager"]),
    ("roots", ["polys"], {"strip_zeros": False}, ["vmap"]),
    ("roots", ["quad"], {}, ["jit"]),
    ("roots", ["mat"], {}, ["eager"]),
    ("histogram2d", ["x", "y"], {}, ["eager", "jit"]),
    ("histogram2d", ["x", "y"], {"bins": 3}, ["eager", "jit"]),
    ("histogram2d", ["x", "y"], {"bins": [2, 4]}, ["eager", "jit"]),
    ("histogram2d", ["x", "y"], {"bins": ["@xedges", 3]}, ["eager", "jit"]),
    ("histogram2d", ["x", "y"], {"bins": "@xedges"}, ["eager", "jit"]),
    ("histogram2d", ["x", "y"], {"bins": 2, "density": True}, ["eager", "jit"]),
    ("histogram2d", ["x", "y"], {"bins": 3, "weights": "@w"}, ["eager", "jit"]),
    ("histogram2d", ["x", "y"], {"bins": 2, "weights": "@w", "density": True}, ["eager"]),
    ("histogram2d", ["x", "y"], {"bins": 2, "range": [[0.0, 2.0], [0.0, 4.0]]},
     ["eager", "jit"]),
    ("histogram2d", ["xi", "y"], {"bins": 3}, ["eager", "jit"]),
    ("histogram2d", ["xs", "ys"], {"bins": 2, "range": [[0.0, 1.0], [1.0, 3.0]]}, ["vmap"]),
    ("histogramdd", ["pts"], {}, ["eager", "jit"]),
    ("histogramdd", ["pts"], {"bins": [2, 3, 2]}, ["eager", "jit"]),
    ("histogramdd", ["pts"], {"bins": 2, "density": True}, ["eager", "jit"]),
    ("histogramdd", ["pts"], {"bins": 2, "weights": "@w6"}, ["eager", "jit"]),
    ("histogramdd", ["pts"], {"bins": 2, "range": [[0.0, 1.0], None, [-3.0, 3.0]]},
     ["eager", "jit"]),
    ("histogramdd", ["pts"], {"bins": [2, 3]}, ["eager"]),
    ("histogramdd", ["pts"], {"bins": 2, "weights": "@w"}, ["eager"]),
    ("histogramdd", ["pts"], {"bins": 2, "range": [[0.0, 1.0]]}, ["eager"]),
]


def operand(np_, name):
    """The named operand as a NumPy array (`np_` is numpy)."""
    vals, dt = OPERANDS[name]
    return np_.asarray(vals, dtype=dt)


def build(jnp, fn, names, kwargs, mode, jit, vmap):
    """Call the case with library `jnp` (and its `jit` / `vmap`)."""
    def kw_value(v):
        if isinstance(v, str) and v.startswith("@"):
            return jnp.asarray(operand(np, v[1:]))
        if isinstance(v, list):
            return [kw_value(e) for e in v]
        return v
    kw = {k: kw_value(v) for k, v in kwargs.items()}
    args = [jnp.asarray(operand(np, n)) for n in names]
    f = getattr(jnp, fn)
    if mode == "eager":
        return f(*args, **kw)
    if mode == "jit":
        return jit(lambda *a: f(*a, **kw))(*args)
    return vmap(lambda *a: f(*a, **kw))(*args)


def encode(out):
    """Flatten a result (array, tuple or list of arrays) to JSON-ready records."""
    if isinstance(out, (tuple, list)):
        return [r for o in out for r in encode(o)]
    a = np.asarray(out)
    return [{"dtype": str(a.dtype), "shape": list(a.shape),
             "re": np.real(a).astype(float).ravel().tolist(),
             "im": np.imag(a).astype(float).ravel().tolist()}]


def main():
    import jax
    import jax.numpy as jnp
    records = []
    for fn, names, kwargs, modes in CASES:
        for mode in modes:
            rec = {"fn": fn, "args": names, "kwargs": kwargs, "mode": mode}
            try:
                rec["out"] = encode(build(jnp, fn, names, kwargs, mode, jax.jit, jax.vmap))
            except Exception as e:  # noqa: BLE001 - recording what JAX raises
                rec["raises"] = type(e).__name__
                rec["message"] = str(e).split("\n")[0]
            records.append(rec)
    path = Path(__file__).with_name("more_jnp_names.json")
    path.write_text(json.dumps(records, indent=0, allow_nan=True))


if __name__ == "__main__":
    main()
