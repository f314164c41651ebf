"""A new Primitive used before its rules exist: JAX raises NotImplementedError for
each missing rule (the jax-primitives tutorial wraps every such call in a context
manager that expects exactly NotImplementedError); astjax raises other classes.

The tutorial's check is `type is NotImplementedError` (exact class).

JAX:    impl, jit (no lowering rule), jvp, vmap: NotImplementedError, exactly
astjax: impl: TypeError ('NoneType' object is not callable)
        jit:  no error (astjax runs the impl; JAX needs a lowering rule)
        jvp:  DifferentiationError (not a NotImplementedError)
        vmap: NotImplementedInAstjaxError (a subclass: fails the exact check)
"""
import jax
import numpy as np
from jax.extend import core

p = core.Primitive("multiply_add")


def ma(x, y, z):
    return p.bind(x, y, z)


def square_add(a, b):
    return ma(a, a, b)


def attempt(what, thunk):
    try:
        thunk()
        print(what + ": no error")
    except Exception as e:
        print(f"{what}: {type(e).__name__}; isinstance NotImplementedError:",
              isinstance(e, NotImplementedError), "; exactly:", type(e) is NotImplementedError)


attempt("impl", lambda: square_add(2., 10.))
p.def_impl(lambda x, y, z: np.add(np.multiply(x, y), z))
p.def_abstract_eval(lambda x, y, z: jax.core.ShapedArray(x.shape, x.dtype))
attempt("jit (no lowering rule)", lambda: jax.jit(square_add)(2., 10.))
attempt("jvp", lambda: jax.jvp(square_add, (2., 10.), (1., 1.)))
attempt("vmap", lambda: jax.vmap(square_add)(np.array([2., 3.]), np.array([10., 20.])))
