"""Cases for the last `jax.scipy.special` names (`hyp1f1`, `hyp2f1`, `owens_t`,
`bessel_jn`, `sph_harm_y`) and complex `loggamma` / `gamma`: values on grids with the
special cases (poles, a = 0, a = b, x = 0 / 1 / > 1, terminating series, the
asymptotic branch, NaN) and derivatives, each recorded twice: with x64 off (float32
inputs) and on (float64 inputs). The recorder of JAX's values (see README.md):
`/work/jaxref/bin/python tests/oracle/record_special_hyp.py` writes special_hyp.json."""
import json
import sys
from pathlib import Path

import numpy as np

INF, NAN = np.inf, np.nan

# hyp1f1 (a, b, x): Taylor (|x| < 100), Kummer's expansion beyond, a = 0, a = b, b = 0
H1 = [(1.0, 2.0, 0.5), (0.5, 1.5, 2.0), (-2.0, 3.0, 2.0), (2.5, 3.7, 10.0), (1.5, 2.5, -3.0),
      (3.0, 1.0, 20.0), (0.3, 0.7, 30.0), (1.0, 2.0, 150.0), (1.0, 2.0, -150.0),
      (2.0, 5.0, 120.0), (0.5, 2.2, -120.0), (0.5, 1.5, 99.5), (0.0, 0.0, 1.0),
      (0.0, 3.0, 2.0), (2.0, 2.0, 1.5), (1.5, 0.0, 1.0), (1.0, 2.0, 0.0), (1.0, 2.0, NAN),
      (NAN, 2.0, 1.0), (-3.0, -5.0, 1.5), (4.0, 9.5, 60.0), (1e-3, 0.5, 5.0)]
# derivatives in a, b, x where the Taylor series converges
H1D = [(1.0, 2.0, 0.5), (0.5, 1.5, 2.0), (2.5, 3.7, 6.0), (1.5, 2.5, -1.0), (3.0, 1.2, 4.0)]
# hyp2f1 (a, b, c, x): Taylor, polynomial, digamma (x > 0.9, c - a - b whole), Euler,
# x = 1 (Gauss), x > 1, poles in c, b == c, a == c, NaN
H2 = [(1.0, 2.0, 3.0, 0.5), (1.0, 2.0, 3.0, 0.95), (1.0, 2.0, 3.0, -0.5), (1.0, 2.0, 3.0, 1.0),
      (1.0, 2.0, 3.0, 2.0), (1.0, 2.0, 3.0, 0.0), (-3.0, 2.0, 1.5, 0.7), (2.0, -2.0, 4.0, 0.5),
      (1.5, 2.5, 2.0, 0.5), (0.5, 0.5, 1.5, 0.6), (2.0, 3.0, 1.0, 0.95), (1.0, 1.0, 3.5, 1.0),
      (0.5, 1.0, 2.5, 0.95), (1.0, 2.0, 4.0, 0.93), (1.0, 2.0, -2.0, 0.5), (1.0, 2.0, 0.0, 0.5),
      (1.0, 2.5, 2.5, 0.5), (2.5, 1.0, 2.5, 0.5), (1.0, 2.0, 3.0, NAN), (-2.0, -4.0, -3.0, 0.5),
      (0.0, 2.0, 3.0, 0.5), (0.25, 0.75, 1.2, -0.8), (3.0, 2.0, 7.5, 0.97), (1.5, 0.5, 4.0, 0.99),
      (2.0, 1.0, 1.5, -2.0)]
H2D = [(1.0, 2.0, 3.5, 0.5), (0.5, 1.5, 2.5, -0.3), (2.0, 1.0, 4.0, 0.8), (0.7, 0.4, 1.9, 0.2)]
OH = [0.0, 0.5, 1.0, -2.0, 3.0, 0.1, 5.0, 10.0, INF, NAN, 0.3, 2.0, 0.5, 0.6, 1.5, -0.7]
OA = [0.5, 0.3, 1.0, 2.0, -5.0, 100.0, 0.9, 0.2, 1.0, 1.0, INF, -1.0, 0.0, 1.2, -0.3, 8.0]
BZ32 = [10.0, -12.0, 30.0, 15.5, 25.0, 0.5, 0.0]  # float32: NaN below |z| ~ 9 (JAX's)
BZ64 = [0.5, 1.0, 3.0, 10.0, -12.0, 30.0, 0.0, 7.25]
SN = [0, 1, 2, 3, 5, 4, 2, 7, 6, 3]
SM = [0, 1, -1, 2, -3, 0, 3, 7, -6, -2]
ST = [0.3, 0.5, 1.0, 2.0, 3.0, 0.0, 1.2, 2.5, 3.14159, 1.7]
SP = [0.2, 0.1, 1.0, 2.0, 4.0, 0.5, 0.3, 6.0, 1.5, 5.5]
SW = [1.0, 0.5 - 1j, 2j, -1.0, 0.3 + 0.3j, 1.0, 1j, 0.7, -0.2 + 1j, 1.5]  # cotangent weights
LZ = [1 + 1j, -2.5 + 0.1j, -30.5 + 2j, 0j, -1 + 0j, 0.5 + 0j, 3 - 4j, -2.5 + 0j, -2.5 - 0j,
      12 + 30j, 1e-3 + 1e-3j, -0.5 - 7j, 150 + 1j, complex(NAN, 1.0), -40.3 - 0.5j]
LZD = [1.5 + 0.5j, -2.3 + 1j, 4 - 2j, 0.7 + 0.1j]


def _cols(rows):
    return [list(c) for c in zip(*rows)]


def _cases():
    a1, b1, x1 = _cols(H1)
    da, db, dx = _cols(H1D)
    a2, b2, c2, x2 = _cols(H2)
    ea, eb, ec, ex = _cols(H2D)
    cases = [
        ("hyp1f1", lambda m: m.sp.hyp1f1(m.f(a1), m.f(b1), m.f(x1))),
        ("hyp1f1_scalar", lambda m: m.sp.hyp1f1(1.0, 2.0, 0.5)),
        ("hyp1f1_broadcast", lambda m: m.sp.hyp1f1(m.f([0.5, 1.0, 2.5]), 1.5, m.f([[1.0], [-2.0]]))),
        ("hyp1f1_int", lambda m: m.sp.hyp1f1(m.i([1, 2]), m.i([3, 3]), m.i([1, -1]))),
        ("hyp1f1_f16", lambda m: m.sp.hyp1f1(m.h([1.5, 2.0]), m.h([2.5, 3.0]), m.h([1.5, -2.0]))),
        ("hyp1f1_bf16", lambda m: m.sp.hyp1f1(m.bf([1.5, 2.0]), 2.5, m.bf([1.5, 2.0]))),
        ("hyp2f1_bf16", lambda m: m.sp.hyp2f1(m.bf([1.5, 2.0]), 1.5, m.bf([3.5, 4.0]), 0.375)),
        ("owens_t_bf16", lambda m: m.sp.owens_t(m.bf([1.5, 2.0]), m.bf([1.5, -0.5]))),
        ("bessel_jn_bf16", lambda m: m.sp.bessel_jn(m.bf([12.0, 16.0]), v=1)),
        ("hyp2f1", lambda m: m.sp.hyp2f1(m.f(a2), m.f(b2), m.f(c2), m.f(x2))),
        ("hyp2f1_scalar", lambda m: m.sp.hyp2f1(1.0, 2.0, 3.0, 0.5)),
        ("owens_t", lambda m: m.sp.owens_t(m.f(OH), m.f(OA))),
        ("owens_t_scalar", lambda m: m.sp.owens_t(0.5, 0.3)),
        ("owens_t_broadcast", lambda m: m.sp.owens_t(m.f([[0.5], [2.0]]), m.f([0.3, -4.0, 1.0]))),
        ("bessel_jn_32", lambda m: m.sp.bessel_jn(m.f(BZ32), v=3)),
        ("bessel_jn_64", lambda m: m.sp.bessel_jn(m.f(BZ64), v=4)),
        ("bessel_jn_v0", lambda m: m.sp.bessel_jn(m.f(BZ32[:5]), v=0)),
        ("bessel_jn_iter", lambda m: m.sp.bessel_jn(m.f(BZ32[:3]), v=5, n_iter=70)),
        ("bessel_jn_v_gt_iter", lambda m: m.sp.bessel_jn(m.f([[10.0, 20.0]]), v=40, n_iter=30)),
        ("bessel_jn_scalar", lambda m: m.sp.bessel_jn(10.0, v=2)),
        ("sph_harm_y", lambda m: m.sp.sph_harm_y(m.i(SN), m.i(SM), m.f(ST), m.f(SP))),
        ("sph_harm_y_nmax", lambda m: m.sp.sph_harm_y(m.i(SN), m.i(SM), m.f(ST), m.f(SP),
                                                      n_max=3)),
        ("sph_harm_y_scalar", lambda m: m.sp.sph_harm_y(m.i([1]), m.i([1]), 0.3, 0.2)),
        ("sph_harm_y_theta0d", lambda m: m.sp.sph_harm_y(m.i(SN), m.i(SM), 0.7, m.f(SP))),
        ("sph_harm_y_few_theta", lambda m: m.sp.sph_harm_y(m.i(SN[:4]), m.i(SM[:4]),
                                                           m.f(ST[:2]), m.f(SP[:4]))),
        ("sph_harm_y_high", lambda m: m.sp.sph_harm_y(m.i([20, 31, 40]), m.i([-5, 17, 40]),
                                                      m.f([0.4, 1.1, 2.9]), m.f([0.3, 4.0, 1.0]))),
        ("loggamma_complex", lambda m: m.sp.loggamma(m.c(LZ))),
        ("loggamma_complex_scalar", lambda m: m.sp.loggamma(1 + 1j)),
        ("gamma_complex", lambda m: m.sp.gamma(m.c(LZ))),
        ("gamma_real", lambda m: m.sp.gamma(m.f([-2.0, -0.0, 0.0, -INF, INF, 3.0, -2.5, NAN]))),
        ("d_hyp1f1_a", lambda m: m.jax.vmap(m.jax.grad(m.sp.hyp1f1, 0))(m.f(da), m.f(db), m.f(dx))),
        ("d_hyp1f1_b", lambda m: m.jax.vmap(m.jax.grad(m.sp.hyp1f1, 1))(m.f(da), m.f(db), m.f(dx))),
        ("d_hyp1f1_x", lambda m: m.jax.vmap(m.jax.grad(m.sp.hyp1f1, 2))(m.f(da), m.f(db), m.f(dx))),
        ("d_hyp1f1_x_far", lambda m: m.jax.vmap(m.jax.grad(m.sp.hyp1f1, 2))(
            m.f([1.0, 2.0, 0.5]), m.f([2.0, 3.0, 1.5]), m.f([150.0, 0.3, 20.0]))),
        ("d2_hyp1f1_x", lambda m: m.jax.grad(m.jax.grad(m.sp.hyp1f1, 2), 2)(1.5, 2.5, 0.7)),
        ("d_hyp2f1_a", lambda m: m.jax.vmap(m.jax.grad(m.sp.hyp2f1, 0))(m.f(ea), m.f(eb), m.f(ec), m.f(ex))),
        ("d_hyp2f1_b", lambda m: m.jax.vmap(m.jax.grad(m.sp.hyp2f1, 1))(m.f(ea), m.f(eb), m.f(ec), m.f(ex))),
        ("d_hyp2f1_c", lambda m: m.jax.vmap(m.jax.grad(m.sp.hyp2f1, 2))(m.f(ea), m.f(eb), m.f(ec), m.f(ex))),
        ("d_hyp2f1_x", lambda m: m.jax.vmap(m.jax.grad(m.sp.hyp2f1, 3))(m.f(ea), m.f(eb), m.f(ec), m.f(ex))),
        ("d_owens_t_h", lambda m: m.jax.vmap(m.jax.grad(m.sp.owens_t, 0))(m.f(OH[:8]), m.f(OA[:8]))),
        ("d_owens_t_a", lambda m: m.jax.vmap(m.jax.grad(m.sp.owens_t, 1))(m.f(OH[:8]), m.f(OA[:8]))),
        # bessel_jn and sph_harm_y have no custom rule: plain AD through the recurrences
        ("d_bessel_jn", lambda m: m.jax.vmap(m.jax.grad(lambda z: m.sp.bessel_jn(z, v=3)[3]))(
            m.f([10.0, -12.0, 15.5, 25.0]))),
        ("d_sph_harm_y_theta", lambda m: m.jax.grad(lambda t: m.jnp.sum(m.jnp.real(
            m.sp.sph_harm_y(m.i(SN), m.i(SM), t, m.f(SP)) * m.c(SW))))(m.f(ST[:5] + [1.2, 2.5, 0.8, 1.4, 1.7]))),
        ("d_sph_harm_y_phi", lambda m: m.jax.grad(lambda p: m.jnp.sum(m.jnp.imag(
            m.sp.sph_harm_y(m.i(SN), m.i(SM), m.f(ST), p))))(m.f(SP))),
        ("d_loggamma_complex", lambda m: m.jax.jvp(m.sp.loggamma, (m.c(LZD),),
                                                   (m.c([1.0, 1j, 0.5 - 0.5j, 2.0]),))),
        # (JAX's reverse mode refuses the loop of complex loggamma; astjax's is tested
        # against this forward derivative)
        ("d_loggamma_complex_unit", lambda m: m.jax.jvp(m.sp.loggamma, (m.c(LZD),),
                                                        (m.c([1.0] * len(LZD)),))[1]),
    ]
    return cases


CASES = _cases()
MODES = {"x32": np.float32, "x64": np.float64}  # x64 off: float32 inputs; on: float64


def _floats(v):
    return [None if np.isnan(t) else float(t) for t in np.asarray(v, np.float64).ravel()]


def namespace(mod, jnp, float_dtype):
    """What the cases see: `f` real, `c` complex, `i` integer arrays of the mode."""
    import types
    cdt = np.complex64 if float_dtype == np.float32 else np.complex128
    idt = np.int32 if float_dtype == np.float32 else np.int64
    return types.SimpleNamespace(jax=mod, sp=mod.scipy.special, jnp=jnp,
                                 h=lambda v: jnp.asarray(v, jnp.float16),
                                 bf=lambda v: jnp.asarray(v, jnp.bfloat16),
                                 f=lambda v: jnp.asarray(np.asarray(v, float_dtype)),
                                 c=lambda v: jnp.asarray(np.asarray(v, cdt)),
                                 i=lambda v: jnp.asarray(np.asarray(v, idt)))


def encode(y):
    ys = y if isinstance(y, tuple) else (y,)
    return [{"dtype": str(np.asarray(v).dtype),
             "weak": bool(getattr(v, "weak_type", False)),
             "shape": list(np.shape(v)),
             "values": _floats(np.real(v)),
             **({"imag": _floats(np.imag(v))} if np.iscomplexobj(v) else {})}
            for v in ys]


def record(path):
    import jax
    import jax.numpy as jnp
    import jax.scipy.special  # noqa: F401
    out = {}
    for mode, fdt in MODES.items():
        jax.config.update("jax_enable_x64", mode == "x64")
        m = namespace(jax, jnp, fdt)
        out[mode] = {name: encode(fn(m)) for name, fn in CASES}
    Path(path).write_text(json.dumps(out))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("special_hyp.json"))
