"""`gaussian_kde`: a kernel density estimate with Gaussian kernels, as
`scipy.stats.gaussian_kde` (and `jax.scipy.stats.gaussian_kde`). The estimator is a
pytree (its arrays are the leaves), so it can be passed through `jit` and `vmap`."""
from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ... import random
from ...batching_api import vmap
from ...tree_util import register_pytree_node_class
from .. import linalg, special

__all__ = ["gaussian_kde"]


@register_pytree_node_class
class gaussian_kde:
    """Gaussian kernel density estimator of `dataset` (shape `(n,)`, or `(d, n)`
    for `n` points in `d` dimensions), optionally `weights`ed. The kernel covariance
    is the data's (weighted) covariance times `factor**2`; `bw_method` gives the
    factor: 'scott' (`neff ** (-1 / (d + 4))`, the default), 'silverman', a scalar,
    or a callable taking the estimator."""
    __slots__ = ("neff", "dataset", "weights", "covariance", "inv_cov")

    def __init__(self, dataset, bw_method=None, weights=None):
        dataset = jnp.atleast_2d(jnp.asarray(dataset))
        if jnp.issubdtype(dataset.dtype, jnp.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not dataset.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = dataset.shape
        ftype = jnp.result_type(dataset, float) if weights is None else \
            jnp.result_type(dataset, weights, float)
        dataset = dataset.astype(ftype)
        if weights is None:
            weights = jnp.full(n, 1.0 / n, dtype=ftype)
        else:
            weights = jnp.atleast_1d(jnp.asarray(weights, ftype))
            weights = weights / jnp.sum(weights)
            if weights.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if len(weights) != n:
                raise ValueError("`weights` input should be of length n")
        self.dataset, self.weights = dataset, weights
        self.neff = 1 / jnp.sum(weights ** 2)
        bw_method = "scott" if bw_method is None else bw_method
        if isinstance(bw_method, str) and bw_method in ("scott", "silverman"):
            base = self.neff if bw_method == "scott" else self.neff * (d + 2) / 4.0
            factor = jnp.power(base, -1. / (d + 4))
        elif jnp.isscalar(bw_method) and not isinstance(bw_method, str):
            factor = bw_method
        elif callable(bw_method):
            factor = bw_method(self)
        else:
            raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a "
                             "callable.")
        cov = jnp.atleast_2d(jnp.cov(dataset, rowvar=1, bias=False, aweights=weights))
        self.covariance = cov * factor ** 2
        self.inv_cov = jnp.linalg.inv(cov) / factor ** 2

    def tree_flatten(self):
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        del aux
        kde = object.__new__(cls)
        kde.neff, kde.dataset, kde.weights, kde.covariance, kde.inv_cov = children
        return kde

    d = property(lambda self: self.dataset.shape[0], doc="The number of dimensions.")
    n = property(lambda self: self.dataset.shape[1], doc="The number of data points.")

    def _points(self, points):
        points = jnp.asarray(points)
        if jnp.issubdtype(points.dtype, jnp.complexfloating):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        points = jnp.atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                return points.reshape(self.d, 1)
            raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points

    def _sum_kernels(self, points, log):
        """Per point: the weighted sum of the data's kernels there (or its log), in
        the coordinates that whiten the kernel covariance."""
        ftype = jnp.result_type(self.dataset, points, self.inv_cov)
        white = linalg.cholesky(self.inv_cov.astype(ftype), lower=True)
        data = jnp.dot(self.dataset.T.astype(ftype), white)
        at = jnp.dot(points.T.astype(ftype), white)
        log_norm = jnp.sum(jnp.log(jnp.diag(white))) - 0.5 * self.d * jnp.log(2 * np.pi)
        w = self.weights.astype(ftype)

        def one(x):
            arg = log_norm - 0.5 * jnp.sum(jnp.square(data - x), axis=1)
            return special.logsumexp(jnp.log(w) + arg) if log else jnp.sum(w * jnp.exp(arg))
        return vmap(one)(at)

    def evaluate(self, points):
        """The estimated density at `points` (shape `(d, m)`, or `(m,)` when d = 1)."""
        return self._sum_kernels(self._points(points), log=False)

    __call__ = evaluate
    pdf = evaluate

    def logpdf(self, x):
        """The log density at `x` (accurate where the density underflows)."""
        return self._sum_kernels(self._points(x), log=True)

    def _convolve(self, chol, scale, target, weights, mean):
        diff = target - mean[:, None]
        arg = 0.5 * jnp.sum(diff * linalg.cho_solve(chol, diff), axis=0)
        return scale * jnp.sum(jnp.exp(-arg) * weights)

    def _gauss_scale(self, chol):
        return 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(chol[0])))

    def integrate_gaussian(self, mean, cov):
        """The integral of the density times a Gaussian N(mean, cov)."""
        mean = jnp.atleast_1d(jnp.squeeze(jnp.asarray(mean)))
        cov = jnp.atleast_2d(jnp.asarray(cov))
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        chol = linalg.cho_factor(self.covariance + cov)
        return self._convolve(chol, self._gauss_scale(chol), self.dataset, self.weights,
                              mean)

    def integrate_box_1d(self, low, high):
        """The probability mass of `[low, high]` (one-dimensional data only)."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = jnp.squeeze(jnp.sqrt(self.covariance))
        lo = jnp.squeeze((low - self.dataset) / sigma)
        hi = jnp.squeeze((high - self.dataset) / sigma)
        return jnp.sum(self.weights * (special.ndtr(hi) - special.ndtr(lo)))

    def integrate_kde(self, other):
        """The integral of the product of this density and `other`'s."""
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        chol = linalg.cho_factor(self.covariance + other.covariance)
        small, large = (self, other) if self.n < other.n else (other, self)
        scale = self._gauss_scale(chol)
        per = vmap(lambda m: self._convolve(chol, scale, large.dataset, large.weights, m),
                   in_axes=1)(small.dataset)
        return jnp.sum(per * small.weights)

    def resample(self, key, shape=()):
        """`shape` draws from the estimate (shape `(d,) + shape`): a data point
        picked by weight plus Gaussian noise of the kernel covariance."""
        pick, noise = random.split(key)
        ind = random.choice(pick, self.n, shape=shape, p=self.weights)
        eps = random.multivariate_normal(noise, jnp.zeros(self.d, self.covariance.dtype),
                                         self.covariance, shape=shape,
                                         dtype=self.dataset.dtype).T
        return self.dataset[:, ind] + eps

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        """Not in JAX's interface either: a NotImplementedError, as JAX's."""
        raise NotImplementedError("only 1D box integrations are supported; use "
                                  "`integrate_box_1d`")

    def set_bandwidth(self, bw_method=None):
        """Not in JAX's interface either: a NotImplementedError, as JAX's."""
        raise NotImplementedError("dynamically changing the bandwidth method is not "
                                  "supported")
