"""Cases for `jnp.put`, `jnp.put_along_axis` and `jnp.place` (JAX returns an updated
copy and requires `inplace=False`), with a recorder of JAX's values (see README.md):
`/work/jaxref/bin/python tests/oracle/record_put_place.py` writes put_place.json."""
import json
import sys
from pathlib import Path

import numpy as np

A = np.arange(12, dtype=np.float32).reshape(3, 4)
IA = np.arange(6, dtype=np.int32).reshape(2, 3)

CASES = [
    ("put", lambda j: j.put(A, np.array([0, 5, 11]), np.array([-1.0, -2.0, -3.0],
                                                               np.float32), inplace=False)),
    ("put_repeat_drop", lambda j: j.put(A, np.array([1, 2, 30, 7]),
                                        np.array([9.0, 8.0], np.float32), inplace=False)),
    ("put_clip", lambda j: j.put(IA, np.array([-4, 2, 40]), 7, mode="clip", inplace=False)),
    ("put_wrap", lambda j: j.put(IA, np.array([-1, 8, 13]), np.array([[5, 6, 7]], np.int32),
                                 mode="wrap", inplace=False)),
    ("put_scalar_ind", lambda j: j.put(A, 3, np.float32(0.5), inplace=False)),
    ("put_empty_ind", lambda j: j.put(A, np.array([], np.int32), 1.0, inplace=False)),
    ("put_along_axis", lambda j: j.put_along_axis(A, np.array([[1], [0], [3]]), 99.0,
                                                  axis=1, inplace=False)),
    ("put_along_axis0", lambda j: j.put_along_axis(IA, np.array([[1, 0, 1]]),
                                                   np.array([[10, 20, 30]], np.int32),
                                                   axis=0, inplace=False)),
    ("put_along_axis_none", lambda j: j.put_along_axis(IA, np.array([1, 5]),
                                                       np.array([7, 8], np.int32),
                                                       axis=None, inplace=False)),
    ("put_along_axis_neg", lambda j: j.put_along_axis(A, np.array([[-1, 0]] * 3), -5.0,
                                                      axis=-1, inplace=False)),
    ("place", lambda j: j.place(A, A % 3 == 0, np.array([100.0, 200.0], np.float32),
                                inplace=False)),
    ("place_more_vals", lambda j: j.place(IA, IA > 3, np.arange(10, dtype=np.int32),
                                          inplace=False)),
    ("place_none", lambda j: j.place(IA, IA > 30, np.array([1], np.int32), inplace=False)),
]

ERRORS = [
    ("put", lambda j: j.put(A, 0, 1.0)),
    ("place", lambda j: j.place(A, A > 1, 1.0)),
    ("put_along_axis", lambda j: j.put_along_axis(A, np.array([[1]]), 1.0, 1)),
    ("put_raise", lambda j: j.put(A, 0, 1.0, mode="raise", inplace=False)),
    ("put_mode", lambda j: j.put(A, 0, 1.0, mode="nope", inplace=False)),
    ("place_empty", lambda j: j.place(A, A > 1, np.array([], np.float32), inplace=False)),
    ("place_size", lambda j: j.place(A, np.array([True]), 1.0, inplace=False)),
    ("along_ndim", lambda j: j.put_along_axis(A, np.array([1]), 1.0, 1, inplace=False)),
    ("along_values", lambda j: j.put_along_axis(A, np.array([[1], [2], [0]]),
                                                np.ones((2, 2), np.float32), 1,
                                                inplace=False)),
]


def record(path):
    import jax.numpy as jnp
    out = {"values": {}, "errors": {}}
    for name, fn in CASES:
        y = fn(jnp)
        out["values"][name] = {"dtype": str(y.dtype), "shape": list(y.shape),
                               "values": np.asarray(y, np.float64).ravel().tolist()}
    for name, fn in ERRORS:
        try:
            fn(jnp)
            out["errors"][name] = None
        except Exception as e:  # noqa: BLE001  (the class is what is recorded)
            out["errors"][name] = [c.__name__ for c in type(e).__mro__
                                   if c.__module__ == "builtins"][0]
    Path(path).write_text(json.dumps(out))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("put_place.json"))
