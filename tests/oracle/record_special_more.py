"""Cases for `jax.scipy.special`'s gamma relatives, zeta, Bessel, exponential-integral,
error-function relatives (`erfcx`, `dawsn`, `wofz`), `sici`, `fresnel` and the other names issue 13 added (`beta`, `loggamma`,
`comb`, `polygamma`, `zeta`, `bernoulli`, `i0`..`i1e`, ...), values on grids with
edge cases (poles, negative arguments, 0, +-inf, NaN) and derivatives, with a
recorder of JAX's values (see README.md):
`/work/jaxref/bin/python tests/oracle/record_special_more.py` writes special_more.json."""
import json
import sys
from pathlib import Path

import numpy as np

INF, NAN = np.inf, np.nan
BA = [2.0, 0.5, -0.5, -1.5, 3.0, 0.0, -2.0, 30.0, 1e-3, INF, NAN, 7.5]
BB = [3.0, 0.5, 1.5, 2.0, -2.5, 1.0, 0.5, 40.0, 2.0, 1.0, 1.0, -7.2]
LG = [0.5, 1.0, 3.5, 40.0, 0.0, -1.0, -2.5, 1e-4, INF, -INF, NAN, 171.5]
CN = [5.0, 10.0, 3.0, 4.5, -1.0, 5.0, 0.0, 50.0, 7.0, 2.0]
CK = [2.0, 3.0, 4.0, 1.5, 1.0, -1.0, 0.0, 25.0, 7.0, 0.5]
PN = [0, 1, 2, 3, 1, 2, 4, 1, 0, 1]
PX = [0.5, 2.0, 3.0, 10.0, -1.5, 1e-3, 0.7, 0.0, -2.0, 100.0]
ZS = [2.0, 3.0, 1.0, 0.5, 2.0, 2.0, 4.0, 3.0, 1.5, 10.0, INF, 2.0, 2.0]
ZQ = [1.0, 0.5, 1.0, 1.0, 0.0, -1.5, -2.0, 20.0, 3.0, 1.0, 2.0, INF, NAN]
BX = [0.0, 1e-3, 0.5, 3.0, -7.0, 14.9, 15.1, 40.0, 200.0, -INF, INF, NAN, -0.0, 1e-30]
GZS, GZQ = [2.0, 3.0, 4.5, 1.5], [1.0, 0.5, 2.0, 3.0]
GX = [0.3, 1.0, -2.0, 7.5, 20.0]
EX = [-3.0, -0.5, 1e-5, 0.3, 0.5, 1.0, 1.5, 2.5, 5.0, 12.0, 30.0, 45.0, 60.0, 85.0, 100.0,
      INF, -INF, NAN, 0.0]
EN = [0, 1, 2, 3, 5, 12, -1]
GE = [0.2, 0.9, 1.7, 6.0, 35.0, 50.0]
WZ = [0j, 1 + 1j, -1 + 0.5j, 2 - 1j, -0.3 - 0.2j, 5j, -5j + 1, 6.0 + 0.01j, 30 + 3j,
      -2.0 + 0j, 0.5 - 3j, 1e3 + 1e-3j]
SX = [0.0, 0.3, 0.6165, 1.0, 3.9, 4.0, 4.1, 7.9, 8.1, 25.0, -2.0, 300.0, 1e5, 2e9, -0.0,
      INF, -INF, NAN]
FX = [0.0, 0.3, 1.0, 1.5, 1.7, 2.5, -3.2, 6.1, 9.7, 30.0, -0.0, INF, -INF, NAN]
DX = [0.0, 1e-30, 0.1, 0.2, 0.21, 1.0, 3.2, 3.3, 6.2, 6.3, 9.9, 10.0, -2.0, 1e3, 1e20, -0.0,
      INF, -INF, NAN]


def _cases():
    cases = [
        ("beta", lambda m: m.sp.beta(m.f(BA), m.f(BB))),
        ("beta_scalar", lambda m: m.sp.beta(2.0, 3.0)),
        ("loggamma", lambda m: m.sp.loggamma(m.f(LG))),
        ("gammasgn", lambda m: m.sp.gammasgn(m.f(LG + [-0.0, -3.5]))),
        ("comb", lambda m: m.sp.comb(m.f(CN), m.f(CK))),
        ("comb_rep", lambda m: m.sp.comb(m.f(CN), m.f(CK), repetition=True)),
        ("polygamma", lambda m: m.sp.polygamma(m.i(PN), m.f(PX))),
        ("polygamma_pyint", lambda m: m.sp.polygamma(2, m.f(PX))),
        ("zeta", lambda m: m.sp.zeta(m.f(ZS), m.f(ZQ))),
        ("i0", lambda m: m.sp.i0(m.f(BX))),
        ("i0e", lambda m: m.sp.i0e(m.f(BX))),
        ("i1", lambda m: m.sp.i1(m.f(BX))),
        ("i1e", lambda m: m.sp.i1e(m.f(BX))),
        ("lax_zeta", lambda m: m.lax.zeta(m.f(ZS), m.f(ZQ))),
        ("lax_i0e", lambda m: m.lax.bessel_i0e(m.f(BX))),
        ("lax_i1e", lambda m: m.lax.bessel_i1e(m.f(BX))),
        ("d_zeta_x", lambda m: m.jax.vmap(m.jax.grad(m.sp.zeta))(m.f(GZS), m.f(GZQ))),
        ("d_zeta_q", lambda m: m.jax.vmap(m.jax.grad(m.sp.zeta, argnums=1))(m.f(GZS),
                                                                          m.f(GZQ))),
        ("d_beta_a", lambda m: m.jax.vmap(m.jax.grad(m.sp.beta))(m.f(GX), m.f(GX[::-1]))),
        ("d_beta_b", lambda m: m.jax.vmap(m.jax.grad(m.sp.beta, argnums=1))(m.f(GX),
                                                                          m.f(GX[::-1]))),
        ("d_loggamma", lambda m: m.jax.vmap(m.jax.grad(m.sp.loggamma))(m.f(GX[:2] + GX[3:]))),
        ("d_polygamma", lambda m: m.jax.vmap(m.jax.grad(lambda x: m.sp.polygamma(1, x)))(
            m.f(GX))),
        ("d_comb", lambda m: m.jax.vmap(m.jax.grad(m.sp.comb))(m.f([5.0, 7.5, 10.0]),
                                                              m.f([2.0, 3.0, 4.5]))),
    ]
    for n in EN:
        # E_n(0) for n >= 2 is left out: JAX 0.10.2 returns 1/n there, astjax 1/(n-1)
        xs = EX[:-1] if n >= 2 else EX
        cases.append((f"expn_{n}", lambda m, n=n, xs=xs: m.sp.expn(n, m.f(xs))))
    cases += [
        ("expn_arrays", lambda m: m.sp.expn(m.f([0, 1, 2, 3, 4, 2.5, 2.5]),
                                            m.f([0.5, 0.5, 0.5, 0.5, 3.0, 1.0, 2.0]))),
        ("exp1", lambda m: m.sp.exp1(m.f(EX + [-0.0]))),
        ("expi", lambda m: m.sp.expi(m.f(EX + [-0.0, -30.0, -85.0, 88.0, 95.0]))),
        ("d_exp1", lambda m: m.jax.vmap(m.jax.grad(m.sp.exp1))(m.f(GE))),
        ("d_expi", lambda m: m.jax.vmap(m.jax.grad(m.sp.expi))(m.f(GE + [-1.5, -7.0]))),
        ("d_expn", lambda m: m.jax.vmap(m.jax.grad(lambda x: m.sp.expn(3, x)))(m.f(GE))),
        ("expi_scalar", lambda m: m.sp.expi(2.0)),
    ]
    cases += [
        ("erfcx", lambda m: m.sp.erfcx(m.f([-10.0, -9.3, -3.0, -0.5, 0.0, 0.5, 1.0, 2.4, 2.5,
                                            2.6, 5.0, 30.0, 1e4, 1e20, INF, -INF, NAN]))),
        ("d_erfcx", lambda m: m.jax.vmap(m.jax.grad(m.sp.erfcx))(
            m.f([-3.0, -0.5, 0.0, 0.5, 2.4, 2.6, 5.0, 30.0]))),
        ("erfcx_scalar", lambda m: m.sp.erfcx(2.0)),
        ("spence", lambda m: m.sp.spence(m.f([-1.0, 0.0, 1e-6, 0.3, 0.5, 0.9, 1.0, 1.5, 2.0,
                                              10.0, 1e6, INF, NAN, -0.0]))),
        # where JAX 0.10.2's derivative of its rational approximation is the true one
        # (it is NaN on (1, 2] and 0 at 1; astjax's is log(x) / (1 - x) everywhere)
        ("d_spence", lambda m: m.jax.vmap(m.jax.grad(m.sp.spence))(
            m.f([0.3, 0.5, 0.9, 10.0, 1e6]))),
    ]
    cases += [
        ("dawsn", lambda m: m.sp.dawsn(m.f(DX))),
        ("d_dawsn", lambda m: m.jax.vmap(m.jax.grad(m.sp.dawsn))(m.f(DX[:13]))),
        ("dawsn_scalar", lambda m: m.sp.dawsn(2.0)),
        ("dawsn_int", lambda m: m.sp.dawsn(m.i([0, 1, -3, 40]))),
    ]
    cases += [
        ("wofz", lambda m: m.sp.wofz(m.c(WZ))),
        ("wofz_real", lambda m: m.sp.wofz(m.f([0.0, 1.0, -2.5, 6.0, 30.0]))),
        ("wofz_scalar", lambda m: m.sp.wofz(1.0)),
        ("wofz_int", lambda m: m.sp.wofz(m.i([0, 1, -3]))),
        ("d_wofz", lambda m: m.jax.jvp(m.sp.wofz, (m.c(WZ[:8]),),
                                       (m.c([1.0, 1j, 1 - 1j, 2.0, 0.5j, 1.0, 1.0, 1j]),))),
        ("erfcx_complex", lambda m: m.sp.erfcx(m.c(WZ))),
    ]
    cases += [
        ("sici", lambda m: m.sp.sici(m.f(SX))),
        ("d_si", lambda m: m.jax.vmap(m.jax.grad(lambda x: m.sp.sici(x)[0]))(m.f(SX[:11]))),
        ("d_ci", lambda m: m.jax.vmap(m.jax.grad(lambda x: m.sp.sici(x)[1]))(m.f(SX[1:11]))),
        ("sici_scalar", lambda m: m.sp.sici(2.0)),
        ("sici_int", lambda m: m.sp.sici(m.i([1, -3, 40]))),
    ]
    cases += [
        ("fresnel", lambda m: m.sp.fresnel(m.f(FX))),
        ("d_fresnel_s", lambda m: m.jax.vmap(m.jax.grad(lambda x: m.sp.fresnel(x)[0]))(
            m.f(FX[:9]))),
        ("d_fresnel_c", lambda m: m.jax.vmap(m.jax.grad(lambda x: m.sp.fresnel(x)[1]))(
            m.f(FX[:9]))),
        ("fresnel_scalar", lambda m: m.sp.fresnel(2.0)),
        ("fresnel_int", lambda m: m.sp.fresnel(m.i([1, -3, 7]))),
    ]
    for fn in ("i0", "i0e", "i1", "i1e"):
        cases.append((f"d_{fn}", lambda m, fn=fn: m.jax.vmap(m.jax.grad(getattr(m.sp, fn)))(
            m.f(GX + [0.0, 1e-30]))))
    for n in (0, 1, 2, 3, 12, 31, 62):
        cases.append((f"bernoulli_{n}", lambda m, n=n: m.sp.bernoulli(n)))
    return cases


CASES = _cases()


def _floats(v):
    return [None if np.isnan(t) else float(t) for t in np.asarray(v, np.float64).ravel()]


def record(path):
    import types
    import jax
    import jax.numpy as jnp
    import jax.scipy.special as sp
    from jax import lax
    m = types.SimpleNamespace(jax=jax, sp=sp, lax=lax, jnp=jnp,
                              f=lambda v: jnp.asarray(np.asarray(v, np.float32)),
                              c=lambda v: jnp.asarray(np.asarray(v, np.complex64)),
                              i=lambda v: jnp.asarray(np.asarray(v, np.int32)))
    out = {}
    for name, fn in CASES:
        y = fn(m)
        ys = y if isinstance(y, tuple) else (y,)
        out[name] = [{"dtype": str(np.asarray(v).dtype),
                      "weak": bool(getattr(v, "weak_type", False)),
                      "shape": list(np.shape(v)),
                      "values": _floats(np.real(v)),
                      **({"imag": _floats(np.imag(v))} if np.iscomplexobj(v) else {})}
                     for v in ys]
    Path(path).write_text(json.dumps(out))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("special_more.json"))
