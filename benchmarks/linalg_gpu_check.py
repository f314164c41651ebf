"""Run the CUDA linear-algebra kernels on a GPU and compare astjax's results with JAX's.

Without a GPU, tests/test_linalg_cuda_lowering.py checks that astjax emits JAX's
custom calls; this script checks what only a GPU can: that the kernels run (they are
registered from the CUDA plugin) and give JAX's values. Each case of
tests/oracle/record_linalg_cuda.py (the CPU-only ones skipped) runs on deterministic,
well-conditioned inputs, once per library, each in its own process:

    python benchmarks/linalg_gpu_check.py --lib jax --out /tmp/jax.npz      # jax[cuda12]==0.10.2
    python benchmarks/linalg_gpu_check.py --lib astjax --out /tmp/astjax.npz
    python benchmarks/linalg_gpu_check.py --compare /tmp/jax.npz /tmp/astjax.npz

The same kernels on the same inputs should agree to a few ulps; `--compare` prints the
largest relative difference per case and exits non-zero above `--rtol`.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "oracle"))
from record_linalg_cuda import cases  # noqa: E402

CPU_ONLY = ("schur", "hessenberg", "sqrtm")


def inputs(name, specs, seed):
    """Arguments for one case: square matrices Hermitian positive definite (upper
    triangular for cholesky_update), pivots valid, the rest standard normal."""
    rng = np.random.default_rng(seed)
    out = []
    for i, (shape, dt) in enumerate(specs):
        if dt == "int32":
            piv = np.arange(shape[-1]) + rng.integers(0, 2, shape)
            out.append(np.minimum(piv, shape[-1] - 1).astype(np.int32))
            continue
        x = rng.standard_normal(shape)
        if np.issubdtype(np.dtype(dt), np.complexfloating):
            x = x + 1j * rng.standard_normal(shape)
        if len(shape) >= 2 and shape[-1] == shape[-2]:
            x = x @ np.conj(np.swapaxes(x, -1, -2)) + shape[-1] * np.eye(shape[-1])
            if name.startswith("cholesky_update") and i == 0:
                x = np.triu(x)
        out.append(np.asarray(x, dt))
    return out


def run(lib, path):
    if lib == "jax":
        import jax
        import jax.scipy.linalg  # noqa: F401
    else:
        import astjax as jax
        import astjax.scipy.linalg  # noqa: F401
    jax.config.update("jax_enable_x64", True)
    print("devices:", jax.devices())
    results = {}
    for k, (name, (fn, specs)) in enumerate(sorted(cases(jax).items())):
        if any(name.startswith(c) or name.startswith(f"scipy_{c}") for c in CPU_ONLY):
            continue
        outs = jax.jit(fn)(*inputs(name, specs, k))
        for i, leaf in enumerate(jax.tree_util.tree_leaves(outs)):
            results[f"{name}/{i}"] = np.asarray(leaf)
    np.savez(path, **results)
    print(f"wrote {path}: {len(results)} arrays")


def compare(a_path, b_path, rtol):
    a, b = np.load(a_path), np.load(b_path)
    worst = 0.0
    for key in sorted(set(a.files) | set(b.files)):
        if key not in a.files or key not in b.files:
            print(f"{key}: only in {'first' if key in a.files else 'second'}")
            worst = np.inf
            continue
        x, y = a[key], b[key]
        if x.shape != y.shape or x.dtype != y.dtype:
            print(f"{key}: {x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}")
            worst = np.inf
            continue
        scale = max(float(np.max(np.abs(x), initial=0)), 1e-30)
        diff = float(np.max(np.abs(x.astype(complex) - y.astype(complex)), initial=0)) / scale
        worst = max(worst, diff)
        print(f"{key}: {diff:.2e}")
    print(f"largest relative difference {worst:.2e}")
    return 0 if worst <= rtol else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", choices=("jax", "astjax"))
    ap.add_argument("--out")
    ap.add_argument("--compare", nargs=2)
    ap.add_argument("--rtol", type=float, default=1e-5)
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare, args.rtol)
    run(args.lib, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
