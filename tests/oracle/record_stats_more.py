"""Cases for `jax.scipy.stats`' `truncnorm`, `mode`, `rankdata` and `gaussian_kde`
(issue 13, item 13) and a recorder of JAX's values (see README.md).

Run with JAX 0.10.2: `/work/jaxref/bin/python tests/oracle/record_stats_more.py` writes
stats_more.json."""
import json
import sys
from pathlib import Path

import numpy as np

_R = np.random.RandomState(11)
X = np.array([-3., -1.2, -0.5, 0., 0.3, 1., 1.9, 2.5, 6., 30., -20.], np.float32)
INTERVALS = [(-1., 2.), (-np.inf, 0.5), (0.5, np.inf), (25., 40.), (-40., -25.), (2., 1.),
             (-0.1, 0.1)]
TRUNC = [(fn, a, b, loc, scale) for fn in ("logpdf", "pdf", "logcdf", "cdf", "logsf", "sf")
         for a, b in INTERVALS for loc, scale in ((0., 1.), (1.5, 2.))]
INTS = _R.randint(0, 4, size=(4, 7))
FLOATS = _R.randn(9).round(1).astype(np.float32)
MODE = [(INTS, {}), (INTS, {"axis": 1}), (INTS, {"axis": None}), (INTS, {"keepdims": True}),
        (INTS, {"axis": 1, "keepdims": True}), (FLOATS, {}), (np.zeros((0, 3)), {})]
RANK = [(x, m, ax) for m in ("average", "min", "max", "dense", "ordinal")
        for x, ax in ((FLOATS, None), (INTS, None), (INTS, 1), (INTS, 0))]
RANK.append((np.array([1., np.nan, 2.], np.float32), "average", None))
DATA1 = _R.randn(30).astype(np.float32)
DATA2 = _R.randn(2, 25).astype(np.float32)
W2 = _R.rand(25).astype(np.float32)
PTS1 = np.linspace(-3, 3, 7).astype(np.float32)
PTS2 = _R.randn(2, 5).astype(np.float32)
# (dataset, bw_method, weights, points)
KDE = [(DATA1, None, None, PTS1), (DATA1, "silverman", None, PTS1), (DATA1, 0.4, None, PTS1),
       (DATA2, None, W2, PTS2), (DATA2, "silverman", None, PTS2)]


def encode(y):
    y = np.asarray(y)
    return {"dtype": str(y.dtype), "shape": list(y.shape),
            "v": [None if np.isnan(v) else (str(v) if np.isinf(v) else float(v))
                  for v in y.ravel().tolist()]}


def run(stats, jnp, jax):
    """Every case's result, computed with `stats` (JAX's or astjax's module)."""
    out = {"trunc": [], "mode": [], "rank": [], "kde": []}
    for fn, a, b, loc, scale in TRUNC:
        out["trunc"].append(getattr(stats.truncnorm, fn)(jnp.asarray(X), a, b, loc, scale))
    for x, kw in MODE:
        out["mode"].append(list(stats.mode(jnp.asarray(x), **kw)))
    for x, m, ax in RANK:
        out["rank"].append(stats.rankdata(jnp.asarray(x), m, axis=ax))
    for data, bw, w, pts in KDE:
        k = stats.gaussian_kde(jnp.asarray(data), bw_method=bw,
                               weights=None if w is None else jnp.asarray(w))
        row = [k.neff, k.covariance, k.evaluate(jnp.asarray(pts)),
               k.logpdf(jnp.asarray(pts)), k.integrate_kde(k),
               k.integrate_gaussian(jnp.zeros(k.d), jnp.eye(k.d))]
        if k.d == 1:
            row.append(k.integrate_box_1d(-0.5, 1.0))
        out["kde"].append(row)
    return out


def record(path):
    import jax
    import jax.numpy as jnp
    import jax.scipy.stats as stats
    out = run(stats, jnp, jax)
    enc = {k: [[encode(y) for y in r] if isinstance(r, list) else encode(r) for r in rows]
           for k, rows in out.items()}
    Path(path).write_text(json.dumps(enc))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("stats_more.json"))
