"""The dtype rules of differentiation, checked before staging as JAX checks them before
tracing: what `grad` / `value_and_grad` / `jacrev` / `hessian` accept as inputs (inexact,
complex only with `holomorphic=True`, integers only with `allow_int`) and as the
differentiated output (real floating, or complex exactly with `holomorphic=True`), and
what `jacfwd` accepts as inputs. Each violation is a located `DifferentiationTypeError`
(a TypeError) with JAX's first sentence. `grad` of an output in pinned host memory is
JAX's ValueError (its 1.0 seed is a device value).
"""
from __future__ import annotations

import numpy as np

from . import dtypes, tree_util
from .errors import ArgumentValueError, DifferentiationTypeError
from .ir import in_memory_space
from .memory import MemorySpace
from .staging import leaf_aval
from .transforms.ad import differentiable


def is_complex(aval):
    """Whether `aval` has a complex dtype."""
    return np.issubdtype(aval.dtype, np.complexfloating)


def check_rev_input(name, holomorphic, allow_int, aval):
    """JAX's dtype rule for an input of grad/jacrev: complex under holomorphic=True;
    otherwise inexact, or integer/bool with allow_int."""
    if holomorphic and not is_complex(aval):
        raise DifferentiationTypeError(
            f"{name} with holomorphic=True requires inputs with complex dtype, but got "
            f"{aval.dtype.name}.",
            hint="pass complex arguments (e.g. x.astype(jnp.complex64)), or drop "
                 "holomorphic=True for a real function")
    if not differentiable(aval) and not allow_int:
        raise DifferentiationTypeError(
            f"{name} requires real- or complex-valued inputs (input dtype that is a "
            f"sub-dtype of np.inexact), but got {aval.dtype.name}.",
            hint="pass a float array (e.g. x.astype(jnp.float32)); for Boolean- "
                 "or integer-valued inputs use vjp, or set allow_int=True")


def check_rev_output(name, holomorphic, aval):
    """JAX's dtype rule for the differentiated output of grad/jacrev: real floating,
    or complex exactly when holomorphic=True."""
    if holomorphic:
        if not is_complex(aval):
            raise DifferentiationTypeError(
                f"{name} with holomorphic=True requires outputs with complex dtype, but "
                f"got {aval.dtype.name}.",
                hint="a holomorphic function maps complex to complex; drop "
                     "holomorphic=True for a real-valued function of complex inputs")
        return
    if not dtypes.is_float(aval.dtype):
        complex_out = is_complex(aval)
        raise DifferentiationTypeError(
            f"{name} requires real-valued outputs (output dtype that is a sub-dtype of "
            f"np.floating), but got {aval.dtype.name}.",
            hint=("pass holomorphic=True if the function is holomorphic; otherwise use "
                  "vjp with a complex cotangent" if complex_out else
                  "an integer or Boolean result has no gradient; use vjp directly, or "
                  "return a float value"))
    if name == "grad":   # (JAX seeds the pullback with a 1.0 in device memory)
        check_cotangent(in_memory_space(aval, MemorySpace.Device), aval,
                        "put the differentiated output in device memory (jax.device_put("
                        "y, jax.memory.Space.Device)) before returning it")


def check_cotangent(ct_aval, aval, hint="device_put the cotangent to the output's memory "
                    "space (jax.memory.Space.Host or Space.Device)"):
    """JAX's ValueErrors for a cotangent of type `ct_aval` given to a VJP whose
    primal output has type `aval`: another shape, dtype or memory space."""
    if ct_aval.shape != aval.shape:
        raise ArgumentValueError(f"Shape of cotangent input to vjp pullback function "
                                 f"{ct_aval.shape} must be the same as the shape of the "
                                 f"corresponding primal output {aval.shape}.",
                                 hint="pass a cotangent shaped like f's output")
    device = MemorySpace.Device   # (avals of other kinds: no memory space)
    # (any dtype for an output without tangents, whose cotangent type is float0: JAX's
    # `_temporary_dtype_exception`)
    if (getattr(ct_aval, "memory_space", device) is not getattr(aval, "memory_space", device)
            or differentiable(aval) and ct_aval.dtype != aval.dtype):
        raise ArgumentValueError(
            f"unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
            f"{ct_aval._long()}, but expected {aval._long()} because the corresponding "
            f"output of the differentiated function had JAX type {aval._long()}", hint=hint)


def check_fwd_input(holomorphic, aval):
    """JAX's dtype rule for an input of jacfwd: real floating, or complex exactly when
    holomorphic=True."""
    if holomorphic:
        check_rev_input("jacfwd", True, True, aval)
    elif not dtypes.is_float(aval.dtype):
        raise DifferentiationTypeError(
            "jacfwd requires real-valued inputs (input dtype that is a sub-dtype of "
            f"np.floating), but got {aval.dtype.name}.",
            hint="pass holomorphic=True for a holomorphic function of complex inputs; "
                 "otherwise use jvp directly (complex or integer inputs)")


def check_inputs(args, nums, check):
    """Apply `check(aval)` to every leaf of the differentiated arguments, before
    staging (as JAX checks them before tracing)."""
    for i in nums:
        for leaf in tree_util.tree_leaves(args[i]):
            check(leaf_aval(leaf))
