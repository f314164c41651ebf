"""JAX's stored results on each CPU they were recorded on.

XLA's CPU backend compiles for the host it runs on (its vector width and instruction
set choose how a fused reduction or a LAPACK-adjacent loop associates), so the last bits
of some float32 results differ between two hosts running the same jaxlib -- JAX itself
included. A test that pins JAX's bits keeps one recorded result per host kind, each
computed by real JAX 0.10.2 on that host, and astjax's result must be one of them (on a
given host it is the one JAX gives there: checked by running the same code under both,
`tests/oracle/` style). Host kinds seen so far:

- ``"epyc-a"``: the AMD EPYC machine the first values were recorded on (sessions up to
  2026-11-29 morning);
- ``"epyc-b"``: an AMD EPYC with AVX-512 (2026-11-29 evening), where JAX 0.10.2 gives
  other last bits for some SVD / LU / determinant derivatives, `jnp.poly` and
  `cholesky_update`.
"""
from __future__ import annotations

__all__ = ["assert_one_of"]


def assert_one_of(got, variants: dict, what: str = "result") -> str:
    """Assert `got` equals one of `variants` (host kind -> JAX's result there); returns
    the matching host kind. The message lists every recorded variant."""
    for host, want in variants.items():
        if got == want:
            return host
    shown = "\n".join(f"  JAX on {h}: {w!r}" for h, w in variants.items())
    raise AssertionError(f"{what} is none of JAX 0.10.2's recorded results:\n"
                         f"  astjax:      {got!r}\n{shown}")
