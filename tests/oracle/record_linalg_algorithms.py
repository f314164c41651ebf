"""`jax.lax.linalg.eigh(implementation=)` and `svd(algorithm=)` on CPU in JAX 0.10.2:
the printed primitives (both keep the choice and `subset_by_index` as parameters),
the values of the choices CPU has (eigh QR = syevd; svd DEFAULT and
DIVIDE_AND_CONQUER = gesdd, QR = gesvd) and JAX's NotImplementedError for the
others. (Their CUDA kernels: record_linalg_cuda.py.) Run with JAX 0.10.2:
`/work/jaxref/bin/python tests/oracle/record_linalg_algorithms.py` writes
linalg_algorithms.json."""
import json
from pathlib import Path

import numpy as np

R = np.random.RandomState(5)
INPUTS = {"sym": (lambda a: (a + a.T).astype(np.float32))(R.randn(4, 4)),
          "tall": R.randn(5, 3).astype(np.float32),
          "wide": R.randn(3, 5).astype(np.float32),
          "c": (R.randn(4, 3) + 1j * R.randn(4, 3)).astype(np.complex64),
          "batch": R.randn(2, 4, 3).astype(np.float32)}


def cases(lax):
    """name -> (function of one matrix, input name)."""
    L = lax.linalg
    E, S = L.EighImplementation, L.SvdAlgorithm
    out = {f"eigh_{i.name.lower()}": (lambda a, i=i: L.eigh(a, implementation=i), "sym")
           for i in E}
    for alg in list(S) + ["QR"]:   # (the string is not an SvdAlgorithm: refused)
        name = f"svd_{alg.name.lower() if isinstance(alg, S) else 'string'}"
        out[name] = (lambda a, alg=alg: L.svd(a, algorithm=alg), "tall")
    out["svd_qr_wide"] = (lambda a: L.svd(a, full_matrices=False, algorithm=S.QR), "wide")
    out["svd_qr_complex"] = (lambda a: L.svd(a, algorithm=S.QR), "c")
    out["svd_qr_values"] = (lambda a: L.svd(a, compute_uv=False, algorithm=S.QR), "wide")
    out["svd_qr_batch"] = (lambda a: L.svd(a, full_matrices=False, algorithm=S.QR), "batch")
    return out


def main():
    import jax
    assert jax.__version__ == "0.10.2", jax.__version__
    out = {}
    for name, (fn, arg) in cases(jax.lax).items():
        a = INPUTS[arg]
        rec = {"jaxpr": str(jax.make_jaxpr(fn)(a))}
        try:
            res = fn(a)
            res = res if isinstance(res, (tuple, list)) else (res,)
            rec["values"] = [{"re": np.real(r).tolist(), "im": np.imag(r).tolist()}
                             for r in res]
        except Exception as e:  # noqa: BLE001  (what JAX raises is the record)
            rec["error"] = type(e).__name__
            rec["message"] = str(e).splitlines()[0]
        out[name] = rec
    Path(__file__).with_name("linalg_algorithms.json").write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
