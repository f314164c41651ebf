# expect: AstjaxError NotImplementedError
# jax: NotImplementedError (NotImplementedError): Transpose rule (for reverse-mode differentiation) for 'twice' not implemented
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.extend.core import Primitive
from astjax.interpreters import ad, mlir

twice_p = Primitive("twice")
twice_p.def_impl(lambda x: x * 2)
twice_p.def_abstract_eval(lambda x: astjax.core.ShapedArray(x.shape, x.dtype))
ad.primitive_jvps[twice_p] = lambda p, t: (twice_p.bind(p[0]), twice_p.bind(ad.instantiate_zeros(t[0])))
mlir.register_lowering(twice_p, mlir.lower_fun(lambda x: x * 2, multiple_results=False))


def loss(x):
    return jnp.sum(twice_p.bind(x))  # error


astjax.grad(loss)(jnp.ones(3))
