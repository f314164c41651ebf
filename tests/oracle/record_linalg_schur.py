"""`jax.lax.linalg.schur`'s sorting options in JAX 0.10.2: `select_callable` without
`sort_eig_vals` is unused (the plain decomposition), `sort_eig_vals=True` stages
(the primitive keeps both options as parameters) and is a NotImplementedError when
run or compiled. Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_linalg_schur.py` writes linalg_schur.json."""
import json
from pathlib import Path

import numpy as np

A = np.array([[1., 2., 0.], [3., -1., 4.], [0., 2., 5.]], np.float32)
C = (A + 1j * A[::-1]).astype(np.complex64)


def select(w):
    """A selection a caller might pass: eigenvalues in the right half-plane."""
    return w.real > 0


def cases(lax):
    """name -> function of one matrix."""
    return {
        "select": lambda a: lax.linalg.schur(a, select_callable=select),
        "select_complex": lambda a: lax.linalg.schur(a, select_callable=select),
        "select_no_vectors": lambda a: lax.linalg.schur(a, compute_schur_vectors=False,
                                                        select_callable=select),
        "sort": lambda a: lax.linalg.schur(a, sort_eig_vals=True),
        "sort_select": lambda a: lax.linalg.schur(a, sort_eig_vals=True,
                                                  select_callable=select),
    }


def operand(name):
    return C if "complex" in name else A


def main():
    import jax
    assert jax.__version__ == "0.10.2", jax.__version__
    out = {}
    for name, fn in cases(jax.lax).items():
        a = operand(name)
        rec = {"jaxpr": str(jax.make_jaxpr(fn)(a)) if name == "sort" else None}
        for mode, run in (("eager", fn), ("jit", jax.jit(fn))):
            try:
                res = run(a)
                rec[mode] = [{"re": np.real(r).tolist(), "im": np.imag(r).tolist()}
                             for r in res]
            except Exception as e:  # noqa: BLE001  (what JAX raises is the record)
                rec[mode] = {"error": type(e).__name__, "message": str(e)}
        out[name] = rec
    Path(__file__).with_name("linalg_schur.json").write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
