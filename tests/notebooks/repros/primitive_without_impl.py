"""Binding a new Primitive before its rules are defined: JAX raises
NotImplementedError (the jax-primitives tutorial catches exactly that); astjax fails
with a TypeError from inside bind.

JAX:    NotImplementedError: Evaluation rule for 'multiply_add' not implemented
astjax: TypeError: 'NoneType' object is not callable
"""
from jax.extend import core

multiply_add_p = core.Primitive("multiply_add")
try:
    multiply_add_p.bind(2., 2., 10.)
except Exception as e:
    print(f"{type(e).__name__}: {e}")
