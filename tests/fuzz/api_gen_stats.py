"""The API fuzzer's fourth call table, drawn from seed `FIRST_STATS` on
(`api_gen.generate`); seeds below it draw as recorded.

Added (issue 13's gaps): `x.at[idx]` updates and reads with `wrap_negative_indices=False`
(negative indices out of bounds, then `mode`), and the `scipy.stats` distributions'
functions (`stats.<distribution>.<function>`): densities, cdf / sf and their logs,
`poisson.entropy`, with random shape parameters and, now and then, `loc` / `scale`."""
from __future__ import annotations

from .api_gen import FLOAT, _operand, _pick, _shape, array, g_at, py_scalar

FIRST_STATS = 70000


def g_at_nowrap(rng, batch):
    """`g_at`'s call with `wrap_negative_indices=False`."""
    args, k = g_at(rng, batch)
    k["wrap_negative_indices"] = False
    return args, k


def _param(rng, shape):
    """A shape parameter: mostly a positive Python float, else an array or scalar."""
    if rng.random() < 0.5:
        return {"py": float(_pick(rng, [0.5, 1.0, 2.0, 3.5, 0.1, 10.0, 0.0, -1.0]))}
    return _operand(rng, FLOAT, shape)


def g_dist(nparams, loc_scale=2, first=None):
    """x (an array of a float dtype; integers for `first="int"`), `nparams` shape
    parameters, then up to `loc_scale` of loc, scale."""
    def g(rng, batch):
        s = _shape(rng)
        dt = _pick(rng, FLOAT)
        x = array(rng, _pick(rng, ["int32", "float32"]) if first == "int" else dt, s)
        args = [x] + [_param(rng, s) for _ in range(nparams)]
        for _ in range(int(rng.integers(0, loc_scale + 1))):
            args.append(py_scalar(rng, "float") if rng.random() < 0.7 else _param(rng, s))
        return args, {}
    return g


def g_entropy(rng, batch):
    """poisson.entropy(mu[, loc]): mu over its three regimes (< 10, < 100, above)."""
    s = _shape(rng)
    args = [array(rng, _pick(rng, FLOAT + ["int32"]), s)]
    if rng.random() < 0.3:
        args.append(py_scalar(rng, "float"))
    return args, {}


_CONT = {"beta": 2, "gamma": 1, "chi2": 1}
STATS: dict = {
    "at_nowrap": (g_at_nowrap, False),
    **{f"stats.{d}.{f}": (g_dist(n), f in ("logpdf", "cdf"))
       for d, n in _CONT.items() for f in ("logpdf", "cdf", "logcdf", "sf", "logsf")},
    "stats.gennorm.cdf": (g_dist(1, 0), True), "stats.gennorm.logpdf": (g_dist(1, 0), False),
    "stats.poisson.cdf": (g_dist(1, 1), False), "stats.poisson.logpmf": (g_dist(1, 1), False),
    "stats.poisson.entropy": (g_entropy, True),
    "stats.norm.logcdf": (g_dist(0), True), "stats.norm.sf": (g_dist(0), False),
    "stats.t.logpdf": (g_dist(1), False), "stats.expon.logsf": (g_dist(0), False),
}
