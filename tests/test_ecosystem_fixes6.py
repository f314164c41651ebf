"""Regressions found by running the equinox-based scientific stack (diffrax, lineax,
optimistix) and the probabilistic libraries (numpyro, blackjax, distrax) on astjax
(eco18), each checked against what JAX 0.10.2 gives; none needs the libraries."""
import importlib
import sys

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import jax_alias


def _served(name):
    """Module `name` (a `jax.*` name) as `install_as_jax` serves it."""
    was_installed = "jax" in sys.modules
    astjax.install_as_jax()
    try:
        return importlib.import_module(name)
    finally:
        if not was_installed:
            jax_alias.uninstall()


# ---- `from jax._src.ad_util import stop_gradient_p` (lineax, so diffrax and optimistix:
# lineax registers a transpose rule on it) raised ModuleNotFoundError. JAX: the primitive
# `lax.stop_gradient` binds.
def test_ad_util_stop_gradient_p_is_what_stop_gradient_binds():
    ad_util = _served("jax._src.ad_util")
    jaxpr = astjax.make_jaxpr(lambda x: astjax.lax.stop_gradient(x) * 2)(1.0)
    assert jaxpr.eqns[0].primitive is ad_util.stop_gradient_p
    assert ad_util.Zero is astjax.core.Zero
