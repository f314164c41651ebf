"""`astjax.scipy.stats`: probability distributions as `scipy.stats` / `jax.scipy.stats`
spell them — one module per distribution (`norm.logpdf(x, loc, scale)`, ...), each
function a composition of `astjax.numpy` and `astjax.scipy.special`, so it works under
`jit`, `grad` and `vmap` -- plus `gaussian_kde` and the summaries `sem`, `mode`,
`rankdata`. The gamma/beta/chi2 `cdf`, `sf` and their logs, and gennorm's `cdf`,
are not provided yet (poisson's `cdf` is).""" 
from . import (bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet, expon, gamma,
               gennorm, geom, gumbel_l, gumbel_r, laplace, logistic, multinomial,
               multivariate_normal, nbinom, norm, pareto, poisson, t, uniform, vonmises,
               wrapcauchy, truncnorm)
from ._core import mode, rankdata, sem
from .kde import gaussian_kde

__all__ = ["bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon",
           "gamma", "gennorm", "geom", "gumbel_l", "gumbel_r", "laplace", "logistic",
           "multinomial", "multivariate_normal", "nbinom", "norm", "pareto", "poisson", "t",
           "uniform", "vonmises", "wrapcauchy", "sem", "truncnorm", "mode", "rankdata",
           "gaussian_kde"]
