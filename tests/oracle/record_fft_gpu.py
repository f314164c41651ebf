"""JAX 0.10.2's FFT lowering for GPUs and the CPU, stored for tests/test_fft_gpu_lowering.py
(see README.md).

`cases(jax)` gives, per name, a `jnp.fft` function and its argument (shape, dtype); each
is lowered for "cuda", "rocm" and "cpu" -- no GPU needed -- and only the module's
`stablehlo.fft` and `stablehlo.transpose` lines are kept (SSA names as `%`, locations
dropped): a multi-dimensional IRFFT is split on GPUs, as cuFFT's and hipFFT's
complex-to-real transforms assume Hermitian symmetry along every axis. Run with JAX
0.10.2: `/work/jaxref/bin/python tests/oracle/record_fft_gpu.py` writes fft_gpu.json.
"""
import json
import re
import sys
from pathlib import Path

PLATFORMS = ("cuda", "rocm", "cpu")


def fft_lines(text):
    """The `stablehlo.fft` / `stablehlo.transpose` lines of module `text`."""
    out = []
    for line in text.splitlines():
        if "stablehlo.fft" in line or "stablehlo.transpose" in line:
            line = re.sub(r"\s*loc\(.*\)$", "", line.strip())
            out.append(re.sub(r"%[\w#:.]+", "%", line))
    return out


def cases(jax):
    """name -> (function, (shape, dtype))."""
    f = jax.numpy.fft
    return {
        "irfftn_2d": (lambda x: f.irfftn(x, axes=(-2, -1)), ((3, 4, 3), "complex64")),
        "irfftn_3d": (lambda x: f.irfftn(x, s=(2, 3, 4), axes=(1, 2, 3)),
                      ((2, 2, 3, 3), "complex64")),
        "irfft2_last_two": (lambda x: f.irfft2(x), ((5, 4), "complex64")),
        "irfftn_middle_axes": (lambda x: f.irfftn(x, axes=(0, 1)), ((4, 3, 2), "complex64")),
        "irfft_1d": (lambda x: f.irfft(x), ((2, 5), "complex64")),
        "rfftn_2d": (lambda x: f.rfftn(x, axes=(-2, -1)), ((3, 4, 4), "float32")),
        "fftn_2d": (lambda x: f.fftn(x), ((4, 4), "complex64")),
        "ifft2": (lambda x: f.ifft2(x), ((2, 4, 4), "complex64")),
    }


def main():
    import jax
    assert jax.__version__ == "0.10.2", jax.__version__
    out = {}
    for name, (fn, (shape, dtype)) in cases(jax).items():
        arg = jax.ShapeDtypeStruct(shape, dtype)
        lowered = {p: jax.jit(fn).trace(arg).lower(lowering_platforms=(p,)).as_text()
                   for p in PLATFORMS}
        out[name] = {p: fft_lines(t) for p, t in lowered.items()}
    path = Path(__file__).with_name("fft_gpu.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}: {len(out)} cases")


if __name__ == "__main__":
    sys.exit(main())
