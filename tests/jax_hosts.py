"""JAX's stored results on each CPU they were recorded on.

XLA's CPU backend compiles for the host it runs on (its vector width and instruction
set choose how a fused reduction or a LAPACK-adjacent loop associates), so the last bits
of some float32 results differ between two hosts running the same jaxlib -- JAX itself
included. A test that pins JAX's bits keeps one recorded result per host kind, each
computed by real JAX 0.10.2 on that host; on a host of a recorded kind astjax's result
must be that one, bit for bit (checked by running the same test code under real JAX
there). Host kinds recorded so far:

- ``"epyc-a"``: the AMD EPYC machine the first values were recorded on (sessions up to
  2026-11-29 afternoon; its CPU signature was not written down, so it is recognised by
  its results);
- ``"epyc-b"``: an AMD EPYC family 26 with AVX-512 (2026-11-29 evening), where JAX
  0.10.2 gives other last bits for some SVD / LU / determinant derivatives, `jnp.poly`
  and `cholesky_update`.

On a host of no recorded kind no stored bits are JAX's there, so the result must match
one of them within float32 rounding noise (rtol 2e-4) instead.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

__all__ = ["assert_one_of", "cpu_signature", "host_kind"]

KINDS = {"AMD EPYC / 26 / 2 / avx avx2 avx512_bf16 avx512f avx_vnni fma": "epyc-b"}


def cpu_signature() -> str:
    """The CPU's model name, family, model and vector instruction sets (Linux)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return ""

    def field(name):
        m = re.search(rf"^{name}\s*:\s*(.*)$", text, re.M)
        return m.group(1).strip() if m else ""
    isa = sorted(set(field("flags").split()) & {"avx", "avx2", "fma", "avx512f", "avx512_bf16",
                                                 "avx_vnni", "amx_tile"})
    return " / ".join([field("model name"), field("cpu family"), field("model"), " ".join(isa)])


def host_kind() -> str | None:
    """This host's recorded kind (a key of the tests' variants), or None."""
    return KINDS.get(cpu_signature())


def _floats(v) -> np.ndarray:
    """A stored result as float32 values: bits (ints), floats, or a hex string of bytes."""
    if isinstance(v, str):
        return np.frombuffer(bytes.fromhex(v), np.float32)
    a = np.asarray(v)
    return a.astype(np.uint32).view(np.float32) if a.dtype.kind in "iu" else a.astype(np.float32)


def assert_one_of(got, variants: dict, what: str = "result") -> str:
    """Assert `got` is JAX's result on this host: the variant recorded for this host's kind
    when there is one, else any recorded variant (bit for bit, or within rtol 2e-4 on a
    host of no recorded kind). Returns the kind whose result matched."""
    kind = host_kind()
    shown = "\n".join(f"  JAX on {h}: {w!r}" for h, w in variants.items())
    message = f"{what} is not JAX 0.10.2's result:\n  astjax:      {got!r}\n{shown}"
    if kind in variants:
        assert got == variants[kind], message
        return kind
    for host, want in variants.items():
        if got == want:
            return host
    if kind is None:
        for host, want in variants.items():
            g, w = _floats(got), _floats(want)
            if g.shape == w.shape and np.allclose(g, w, rtol=2e-4, atol=1e-6, equal_nan=True):
                return host
    raise AssertionError(message)
