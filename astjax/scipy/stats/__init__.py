"""`astjax.scipy.stats`: probability distributions as `scipy.stats` / `jax.scipy.stats`
spell them — one module per distribution (`norm.logpdf(x, loc, scale)`, ...), each
function a composition of `astjax.numpy` and `astjax.scipy.special`, so it works under
`jit`, `grad` and `vmap`. Functions that need the regularized incomplete gamma or beta
functions (gamma/beta/chi2/poisson `cdf`, `truncnorm`) are not provided yet."""
from . import (bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet, expon, gamma,
               gennorm, geom, gumbel_l, gumbel_r, laplace, logistic, multinomial,
               multivariate_normal, nbinom, norm, pareto, poisson, t, uniform, vonmises,
               wrapcauchy)
from ._core import sem

__all__ = ["bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon",
           "gamma", "gennorm", "geom", "gumbel_l", "gumbel_r", "laplace", "logistic",
           "multinomial", "multivariate_normal", "nbinom", "norm", "pareto", "poisson", "t",
           "uniform", "vonmises", "wrapcauchy", "sem"]
