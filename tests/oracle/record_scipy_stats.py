"""Cases for `jax.scipy.stats` and a recorder of JAX's values (see README.md).

`CASES` is a list of (module, function, args): float args become float32 arrays
(lists) or Python floats; the test compares astjax's result with the stored one."""
import json
import math
import sys
from pathlib import Path

X = [-2.5, -1.0, -0.25, 0.0, 0.3, 1.0, 2.0, 4.5]
POS = [0.05, 0.3, 1.0, 2.0, 3.5, 7.0]
Q = [0.0, 0.01, 0.25, 0.5, 0.9, 0.999, 1.0]
UNIT = [-0.2, 0.0, 0.1, 0.5, 0.9, 1.0, 1.3]
K = [-1.0, 0.0, 1.0, 2.0, 3.0, 5.0, 2.5]

CASES = []
for fn in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
    CASES.append(("norm", fn, (X, 0.5, 2.0)))
CASES += [("norm", "ppf", (Q, 0.5, 2.0)), ("norm", "isf", (Q, 0.5, 2.0)),
          ("norm", "logpdf", (X,))]
for fn in ("logpdf", "pdf", "cdf", "sf"):
    CASES.append(("logistic", fn, (X, 0.3, 1.5)))
CASES += [("logistic", "ppf", (Q, 0.3, 1.5)), ("logistic", "isf", (Q, 0.3, 1.5))]
for fn in ("logpdf", "pdf", "cdf"):
    CASES.append(("laplace", fn, (X, 0.3, 1.5)))
for fn in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
    CASES.append(("cauchy", fn, (X, 0.3, 1.5)))
CASES += [("cauchy", "ppf", (Q[1:-2], 0.3, 1.5)), ("cauchy", "isf", (Q[1:-2], 0.3, 1.5))]
for fn in ("logpdf", "pdf", "cdf"):
    CASES.append(("uniform", fn, (X, -1.0, 3.0)))
CASES.append(("uniform", "ppf", (UNIT, -1.0, 3.0)))
for fn in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
    CASES.append(("expon", fn, (X, -0.5, 2.0)))
CASES.append(("expon", "ppf", (UNIT, -0.5, 2.0)))
CASES += [("t", "logpdf", (X, 3.0, 0.2, 1.3)), ("t", "pdf", (X, 0.7))]
CASES += [("bernoulli", "logpmf", (K, 0.3)), ("bernoulli", "pmf", (K, 0.3)),
          ("bernoulli", "cdf", (K, 0.3)), ("bernoulli", "ppf", (UNIT, 0.3))]
CASES += [("poisson", "logpmf", (K, 2.5)), ("poisson", "pmf", (K, 2.5, 1.0))]
CASES += [("gamma", "logpdf", (X, 2.5, -0.5, 1.5)), ("gamma", "pdf", (POS, 0.7))]
CASES += [("beta", "logpdf", (UNIT, 2.0, 3.0)), ("beta", "pdf", (UNIT, 0.5, 1.5))]
CASES += [("chi2", "logpdf", (X, 3.0)), ("chi2", "pdf", (POS, 2.0, 0.1, 2.0))]
CASES += [("geom", "logpmf", (K, 0.3)), ("geom", "pmf", (K, 0.3, -1.0))]
for mod in ("gumbel_r", "gumbel_l"):
    for fn in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
        CASES.append((mod, fn, (X, 0.3, 1.5)))
    CASES.append((mod, "ppf", (UNIT, 0.3, 1.5)))
for fn in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
    CASES.append(("pareto", fn, (POS, 2.5, 0.0, 0.8)))
CASES.append(("pareto", "ppf", (UNIT, 2.5)))
CASES += [("binom", "logpmf", (K, 5.0, 0.3)), ("binom", "pmf", (K, 5.0, 0.3))]
CASES += [("nbinom", "logpmf", (K, 3.0, 0.4)), ("nbinom", "pmf", (K, 3.0, 0.4))]
CASES += [("betabinom", "logpmf", (K, 5.0, 2.0, 3.0)), ("betabinom", "pmf", (K, 5.0, 2.0, 3.0))]
CASES += [("vonmises", "logpdf", (X, 1.5)), ("vonmises", "pdf", (X, 0.3))]
CASES += [("wrapcauchy", "logpdf", (POS, 0.4)), ("wrapcauchy", "pdf", (POS, 0.4))]
CASES += [("gennorm", "logpdf", (X, 1.5)), ("gennorm", "pdf", (X, 2.0))]
CASES += [("dirichlet", "logpdf", ([[0.2, 0.5], [0.3, 0.1], [0.5, 0.4]], [1.5, 2.0, 3.0])),
          ("dirichlet", "pdf", ([[0.2, 0.5], [0.3, 0.1]], [1.5, 2.0, 3.0]))]
CASES += [("multivariate_normal", "logpdf",
           ([[0.1, -0.3], [1.0, 2.0], [0.0, 0.0]], [0.2, -0.1], [[2.0, 0.3], [0.3, 1.0]])),
          ("multivariate_normal", "pdf", ([0.5, 0.5], [0.0, 0.2], [[1.0, 0.2], [0.2, 0.5]])),
          ("multivariate_normal", "logpdf", (X, 0.5, 2.0))]
# invalid parameters: NaN, -inf or a value, as JAX decides
CASES += [("norm", "logpdf", (X, 0.0, -1.0)), ("binom", "logpmf", (K, -1.0, 0.3)),
          ("binom", "logpmf", (K, 4.0, 1.5)), ("poisson", "logpmf", (K, -1.0)),
          ("geom", "logpmf", (K, 1.5)), ("bernoulli", "logpmf", (K, 1.5)),
          ("gamma", "logpdf", (X, -1.0)), ("beta", "logpdf", (UNIT, -1.0, 2.0)),
          ("t", "logpdf", (X, -1.0)), ("nbinom", "logpmf", (K, 3.0, 1.5)),
          ("pareto", "logpdf", (POS, -1.0)), ("uniform", "logpdf", (X, 0.0, -1.0)),
          ("laplace", "logpdf", (X, 0.0, -1.0)), ("logistic", "cdf", (X, 0.0, -1.0)),
          ("expon", "logpdf", (X, 0.0, -1.0)), ("cauchy", "logpdf", (X, 0.0, -1.0)),
          ("chi2", "logpdf", (X, -2.0)), ("vonmises", "logpdf", (X, -1.0)),
          ("gumbel_r", "logpdf", (X, 0.0, -1.0)), ("poisson", "logpmf", (K, 0.0)),
          ("geom", "logpmf", (K, 0.0)), ("nbinom", "logpmf", (K, 0.0, 0.5))]


def args_for(np, jnp, args):
    """The case's arguments: lists become float32 arrays, numbers stay Python."""
    return [jnp.asarray(np.asarray(a, np.float32)) if isinstance(a, list) else a
            for a in args]


def key(case):
    mod, fn, args = case
    return f"{mod}.{fn}{json.dumps(args)}"


def _finite_or_str(v):
    return v if math.isfinite(v) else str(v)


if __name__ == "__main__":
    import numpy as np
    import jax.numpy as jnp
    import jax.scipy.stats as stats
    assert "astjax" not in sys.modules
    out = {}
    for case in CASES:
        mod, fn, args = case
        val = np.asarray(getattr(getattr(stats, mod), fn)(*args_for(np, jnp, args)), np.float64)
        out[key(case)] = [_finite_or_str(float(v)) for v in val.ravel()]
    path = Path(__file__).with_name("scipy_stats.json")
    path.write_text(json.dumps(out, indent=0) + "\n")
    print(f"wrote {len(out)} cases to {path}")
