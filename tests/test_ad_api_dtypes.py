"""The dtype rules of grad / value_and_grad / jacrev / jacfwd / hessian against JAX.

Every combination of API x function x input x option in the tables below is called on
astjax and compared with what JAX 0.10.2 does (stored in `JAX`): the same value, or a
TypeError whose message starts with JAX's first sentence. JAX's rules: grad and jacrev
need real floating outputs (complex only with holomorphic=True, which also requires
complex inputs) and inexact inputs (integer ones with allow_int=True); jacfwd needs
real floating inputs unless holomorphic=True.

`JAX` is recorded, not computed here: `/work/jaxref/bin/python
tests/test_ad_api_dtypes.py --record` prints it from a real JAX run.
"""
import itertools
import sys

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def sq(z):
    return z * z


def abs2(z):
    return jnp.sum(jnp.real(z * jnp.conj(z)))


def cscale(x):
    return jnp.sum(x) * (1 + 2j)


def to_int(x):
    return jnp.round(jnp.sum(jnp.real(x))).astype(jnp.int32)


def sin_sum(x):
    return jnp.sum(jnp.sin(x))


FUNS = {"sq": sq, "abs2": abs2, "cscale": cscale, "to_int": to_int, "sin_sum": sin_sum}
INPUTS = {"f32": np.float32(1.5), "c64": np.complex64(1 + 2j), "i32": np.int32(3),
          "f32v": np.array([0.5, 1.5], np.float32),
          "c64v": np.array([1 + 2j, -0.5j], np.complex64)}
APIS = ("grad", "value_and_grad", "jacrev", "jacfwd", "hessian")
OPTIONS = {"default": {}, "holomorphic": {"holomorphic": True}, "allow_int": {"allow_int": True}}
CASES = [" ".join(c) for c in itertools.product(APIS, FUNS, INPUTS, OPTIONS)]


def _encode(x):
    """A result as (dtype name, nested list with complex numbers as [re, im])."""
    a = np.asarray(x)
    if np.iscomplexobj(a):
        return str(a.dtype), np.stack([a.real, a.imag], -1).tolist()
    return str(a.dtype), a.tolist()


def _first_sentence(message):
    """A message's first sentence (JAX's: "..., but got int32."; then its advice)."""
    return message.split(". ")[0].rstrip(".") + "."


def _run(api, case):
    """(kind, payload): ("value", encoded results) or ("raise", class, first sentence)."""
    name, fun, x, opt = case.split(" ")
    try:
        out = getattr(api, name)(FUNS[fun], **OPTIONS[opt])(INPUTS[x])
    except Exception as e:  # noqa: BLE001 - recording what each library raises
        return "raise", "TypeError" if isinstance(e, TypeError) else type(e).__name__, \
            _first_sentence(getattr(e, "message", str(e)))
    leaves = out if isinstance(out, tuple) else (out,)
    return "value", [_encode(v) for v in leaves]


def record():
    """Print JAX's table (run under an interpreter with jax 0.10.2)."""
    import jax
    globals()["jnp"] = jax.numpy
    print("JAX = {")
    for case in CASES:
        print(f"    {case!r}: {_run(jax, case)!r},")
    print("}")


# recorded with jax 0.10.2 (see the module docstring)
JAX = {
    'grad sq f32 default': ('value', [('float32', 3.0)]),
    'grad sq f32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'grad sq f32 allow_int': ('value', [('float32', 3.0)]),
    'grad sq c64 default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'grad sq c64 holomorphic': ('value', [('complex64', [2.0, 4.0])]),
    'grad sq c64 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'grad sq i32 default': ('raise', 'TypeError', 'grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32.'),
    'grad sq i32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'grad sq i32 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'grad sq f32v default': ('raise', 'TypeError', 'Gradient only defined for scalar-output functions.'),
    'grad sq f32v holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'grad sq f32v allow_int': ('raise', 'TypeError', 'Gradient only defined for scalar-output functions.'),
    'grad sq c64v default': ('raise', 'TypeError', 'Gradient only defined for scalar-output functions.'),
    'grad sq c64v holomorphic': ('raise', 'TypeError', 'Gradient only defined for scalar-output functions.'),
    'grad sq c64v allow_int': ('raise', 'TypeError', 'Gradient only defined for scalar-output functions.'),
    'grad abs2 f32 default': ('value', [('float32', 3.0)]),
    'grad abs2 f32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'grad abs2 f32 allow_int': ('value', [('float32', 3.0)]),
    'grad abs2 c64 default': ('value', [('complex64', [2.0, -4.0])]),
    'grad abs2 c64 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires outputs with complex dtype, but got float32.'),
    'grad abs2 c64 allow_int': ('value', [('complex64', [2.0, -4.0])]),
    'grad abs2 i32 default': ('raise', 'TypeError', 'grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32.'),
    'grad abs2 i32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'grad abs2 i32 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'grad abs2 f32v default': ('value', [('float32', [1.0, 3.0])]),
    'grad abs2 f32v holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'grad abs2 f32v allow_int': ('value', [('float32', [1.0, 3.0])]),
    'grad abs2 c64v default': ('value', [('complex64', [[2.0, -4.0], [0.0, 1.0]])]),
    'grad abs2 c64v holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires outputs with complex dtype, but got float32.'),
    'grad abs2 c64v allow_int': ('value', [('complex64', [[2.0, -4.0], [0.0, 1.0]])]),
    'grad cscale f32 default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'grad cscale f32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'grad cscale f32 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'grad cscale c64 default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'grad cscale c64 holomorphic': ('value', [('complex64', [1.0, 2.0])]),
    'grad cscale c64 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'grad cscale i32 default': ('raise', 'TypeError', 'grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32.'),
    'grad cscale i32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'grad cscale i32 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'grad cscale f32v default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'grad cscale f32v holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'grad cscale f32v allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'grad cscale c64v default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'grad cscale c64v holomorphic': ('value', [('complex64', [[1.0, 2.0], [1.0, 2.0]])]),
    'grad cscale c64v allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'grad to_int f32 default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'grad to_int f32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'grad to_int f32 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'grad to_int c64 default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'grad to_int c64 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires outputs with complex dtype, but got int32.'),
    'grad to_int c64 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'grad to_int i32 default': ('raise', 'TypeError', 'grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32.'),
    'grad to_int i32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'grad to_int i32 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'grad to_int f32v default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'grad to_int f32v holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'grad to_int f32v allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'grad to_int c64v default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'grad to_int c64v holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires outputs with complex dtype, but got int32.'),
    'grad to_int c64v allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'grad sin_sum f32 default': ('value', [('float32', 0.07073719799518585)]),
    'grad sin_sum f32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'grad sin_sum f32 allow_int': ('value', [('float32', 0.07073719799518585)]),
    'grad sin_sum c64 default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'grad sin_sum c64 holomorphic': ('value', [('complex64', [2.0327229499816895, -3.0518977642059326])]),
    'grad sin_sum c64 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'grad sin_sum i32 default': ('raise', 'TypeError', 'grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32.'),
    'grad sin_sum i32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'grad sin_sum i32 allow_int': ('value', [("[('float0', 'V')]", (b'',))]),
    'grad sin_sum f32v default': ('value', [('float32', [0.8775825500488281, 0.07073719799518585])]),
    'grad sin_sum f32v holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'grad sin_sum f32v allow_int': ('value', [('float32', [0.8775825500488281, 0.07073719799518585])]),
    'grad sin_sum c64v default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'grad sin_sum c64v holomorphic': ('value', [('complex64', [[2.0327229499816895, -3.0518977642059326], [1.1276259422302246, 0.0]])]),
    'grad sin_sum c64v allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'value_and_grad sq f32 default': ('value', [('float32', 2.25), ('float32', 3.0)]),
    'value_and_grad sq f32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'value_and_grad sq f32 allow_int': ('value', [('float32', 2.25), ('float32', 3.0)]),
    'value_and_grad sq c64 default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'value_and_grad sq c64 holomorphic': ('value', [('complex64', [-3.0, 4.0]), ('complex64', [2.0, 4.0])]),
    'value_and_grad sq c64 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'value_and_grad sq i32 default': ('raise', 'TypeError', 'grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32.'),
    'value_and_grad sq i32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'value_and_grad sq i32 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'value_and_grad sq f32v default': ('raise', 'TypeError', 'Gradient only defined for scalar-output functions.'),
    'value_and_grad sq f32v holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'value_and_grad sq f32v allow_int': ('raise', 'TypeError', 'Gradient only defined for scalar-output functions.'),
    'value_and_grad sq c64v default': ('raise', 'TypeError', 'Gradient only defined for scalar-output functions.'),
    'value_and_grad sq c64v holomorphic': ('raise', 'TypeError', 'Gradient only defined for scalar-output functions.'),
    'value_and_grad sq c64v allow_int': ('raise', 'TypeError', 'Gradient only defined for scalar-output functions.'),
    'value_and_grad abs2 f32 default': ('value', [('float32', 2.25), ('float32', 3.0)]),
    'value_and_grad abs2 f32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'value_and_grad abs2 f32 allow_int': ('value', [('float32', 2.25), ('float32', 3.0)]),
    'value_and_grad abs2 c64 default': ('value', [('float32', 5.0), ('complex64', [2.0, -4.0])]),
    'value_and_grad abs2 c64 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires outputs with complex dtype, but got float32.'),
    'value_and_grad abs2 c64 allow_int': ('value', [('float32', 5.0), ('complex64', [2.0, -4.0])]),
    'value_and_grad abs2 i32 default': ('raise', 'TypeError', 'grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32.'),
    'value_and_grad abs2 i32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'value_and_grad abs2 i32 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'value_and_grad abs2 f32v default': ('value', [('float32', 2.5), ('float32', [1.0, 3.0])]),
    'value_and_grad abs2 f32v holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'value_and_grad abs2 f32v allow_int': ('value', [('float32', 2.5), ('float32', [1.0, 3.0])]),
    'value_and_grad abs2 c64v default': ('value', [('float32', 5.25), ('complex64', [[2.0, -4.0], [0.0, 1.0]])]),
    'value_and_grad abs2 c64v holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires outputs with complex dtype, but got float32.'),
    'value_and_grad abs2 c64v allow_int': ('value', [('float32', 5.25), ('complex64', [[2.0, -4.0], [0.0, 1.0]])]),
    'value_and_grad cscale f32 default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'value_and_grad cscale f32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'value_and_grad cscale f32 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'value_and_grad cscale c64 default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'value_and_grad cscale c64 holomorphic': ('value', [('complex64', [-3.0, 4.0]), ('complex64', [1.0, 2.0])]),
    'value_and_grad cscale c64 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'value_and_grad cscale i32 default': ('raise', 'TypeError', 'grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32.'),
    'value_and_grad cscale i32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'value_and_grad cscale i32 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'value_and_grad cscale f32v default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'value_and_grad cscale f32v holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'value_and_grad cscale f32v allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'value_and_grad cscale c64v default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'value_and_grad cscale c64v holomorphic': ('value', [('complex64', [-2.0, 3.5]), ('complex64', [[1.0, 2.0], [1.0, 2.0]])]),
    'value_and_grad cscale c64v allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'value_and_grad to_int f32 default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'value_and_grad to_int f32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'value_and_grad to_int f32 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'value_and_grad to_int c64 default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'value_and_grad to_int c64 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires outputs with complex dtype, but got int32.'),
    'value_and_grad to_int c64 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'value_and_grad to_int i32 default': ('raise', 'TypeError', 'grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32.'),
    'value_and_grad to_int i32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'value_and_grad to_int i32 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'value_and_grad to_int f32v default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'value_and_grad to_int f32v holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'value_and_grad to_int f32v allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'value_and_grad to_int c64v default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'value_and_grad to_int c64v holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires outputs with complex dtype, but got int32.'),
    'value_and_grad to_int c64v allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'value_and_grad sin_sum f32 default': ('value', [('float32', 0.9974949955940247), ('float32', 0.07073719799518585)]),
    'value_and_grad sin_sum f32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'value_and_grad sin_sum f32 allow_int': ('value', [('float32', 0.9974949955940247), ('float32', 0.07073719799518585)]),
    'value_and_grad sin_sum c64 default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'value_and_grad sin_sum c64 holomorphic': ('value', [('complex64', [3.165778636932373, 1.9596009254455566]), ('complex64', [2.0327229499816895, -3.0518977642059326])]),
    'value_and_grad sin_sum c64 allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'value_and_grad sin_sum i32 default': ('raise', 'TypeError', 'grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32.'),
    'value_and_grad sin_sum i32 holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'value_and_grad sin_sum i32 allow_int': ('value', [('float32', 0.14112000167369843), ("[('float0', 'V')]", (b'',))]),
    'value_and_grad sin_sum f32v default': ('value', [('float32', 1.4769206047058105), ('float32', [0.8775825500488281, 0.07073719799518585])]),
    'value_and_grad sin_sum f32v holomorphic': ('raise', 'TypeError', 'grad with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'value_and_grad sin_sum f32v allow_int': ('value', [('float32', 1.4769206047058105), ('float32', [0.8775825500488281, 0.07073719799518585])]),
    'value_and_grad sin_sum c64v default': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'value_and_grad sin_sum c64v holomorphic': ('value', [('complex64', [3.165778636932373, 1.4385056495666504]), ('complex64', [[2.0327229499816895, -3.0518977642059326], [1.1276259422302246, 0.0]])]),
    'value_and_grad sin_sum c64v allow_int': ('raise', 'TypeError', 'grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacrev sq f32 default': ('value', [('float32', 3.0)]),
    'jacrev sq f32 holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacrev sq f32 allow_int': ('value', [('float32', 3.0)]),
    'jacrev sq c64 default': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacrev sq c64 holomorphic': ('value', [('complex64', [2.0, 4.0])]),
    'jacrev sq c64 allow_int': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacrev sq i32 default': ('raise', 'TypeError', 'jacrev requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32.'),
    'jacrev sq i32 holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'jacrev sq i32 allow_int': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'jacrev sq f32v default': ('value', [('float32', [[1.0, 0.0], [0.0, 3.0]])]),
    'jacrev sq f32v holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacrev sq f32v allow_int': ('value', [('float32', [[1.0, 0.0], [0.0, 3.0]])]),
    'jacrev sq c64v default': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacrev sq c64v holomorphic': ('value', [('complex64', [[[2.0, 4.0], [0.0, -0.0]], [[0.0, 0.0], [0.0, -1.0]]])]),
    'jacrev sq c64v allow_int': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacrev abs2 f32 default': ('value', [('float32', 3.0)]),
    'jacrev abs2 f32 holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacrev abs2 f32 allow_int': ('value', [('float32', 3.0)]),
    'jacrev abs2 c64 default': ('value', [('complex64', [2.0, -4.0])]),
    'jacrev abs2 c64 holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires outputs with complex dtype, but got float32.'),
    'jacrev abs2 c64 allow_int': ('value', [('complex64', [2.0, -4.0])]),
    'jacrev abs2 i32 default': ('raise', 'TypeError', 'jacrev requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32.'),
    'jacrev abs2 i32 holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'jacrev abs2 i32 allow_int': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'jacrev abs2 f32v default': ('value', [('float32', [1.0, 3.0])]),
    'jacrev abs2 f32v holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacrev abs2 f32v allow_int': ('value', [('float32', [1.0, 3.0])]),
    'jacrev abs2 c64v default': ('value', [('complex64', [[2.0, -4.0], [0.0, 1.0]])]),
    'jacrev abs2 c64v holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires outputs with complex dtype, but got float32.'),
    'jacrev abs2 c64v allow_int': ('value', [('complex64', [[2.0, -4.0], [0.0, 1.0]])]),
    'jacrev cscale f32 default': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacrev cscale f32 holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacrev cscale f32 allow_int': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacrev cscale c64 default': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacrev cscale c64 holomorphic': ('value', [('complex64', [1.0, 2.0])]),
    'jacrev cscale c64 allow_int': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacrev cscale i32 default': ('raise', 'TypeError', 'jacrev requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32.'),
    'jacrev cscale i32 holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'jacrev cscale i32 allow_int': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacrev cscale f32v default': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacrev cscale f32v holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacrev cscale f32v allow_int': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacrev cscale c64v default': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacrev cscale c64v holomorphic': ('value', [('complex64', [[1.0, 2.0], [1.0, 2.0]])]),
    'jacrev cscale c64v allow_int': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacrev to_int f32 default': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'jacrev to_int f32 holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacrev to_int f32 allow_int': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'jacrev to_int c64 default': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'jacrev to_int c64 holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires outputs with complex dtype, but got int32.'),
    'jacrev to_int c64 allow_int': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'jacrev to_int i32 default': ('raise', 'TypeError', 'jacrev requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32.'),
    'jacrev to_int i32 holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'jacrev to_int i32 allow_int': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'jacrev to_int f32v default': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'jacrev to_int f32v holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacrev to_int f32v allow_int': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'jacrev to_int c64v default': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'jacrev to_int c64v holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires outputs with complex dtype, but got int32.'),
    'jacrev to_int c64v allow_int': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'jacrev sin_sum f32 default': ('value', [('float32', 0.07073719799518585)]),
    'jacrev sin_sum f32 holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacrev sin_sum f32 allow_int': ('value', [('float32', 0.07073719799518585)]),
    'jacrev sin_sum c64 default': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacrev sin_sum c64 holomorphic': ('value', [('complex64', [2.0327229499816895, -3.0518977642059326])]),
    'jacrev sin_sum c64 allow_int': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacrev sin_sum i32 default': ('raise', 'TypeError', 'jacrev requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32.'),
    'jacrev sin_sum i32 holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'jacrev sin_sum i32 allow_int': ('value', [('int32', 0)]),
    'jacrev sin_sum f32v default': ('value', [('float32', [0.8775825500488281, 0.07073719799518585])]),
    'jacrev sin_sum f32v holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacrev sin_sum f32v allow_int': ('value', [('float32', [0.8775825500488281, 0.07073719799518585])]),
    'jacrev sin_sum c64v default': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacrev sin_sum c64v holomorphic': ('value', [('complex64', [[2.0327229499816895, -3.0518977642059326], [1.1276259422302246, 0.0]])]),
    'jacrev sin_sum c64v allow_int': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacfwd sq f32 default': ('value', [('float32', 3.0)]),
    'jacfwd sq f32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacfwd sq f32 allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd sq c64 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacfwd sq c64 holomorphic': ('value', [('complex64', [2.0, 4.0])]),
    'jacfwd sq c64 allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd sq i32 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got int32.'),
    'jacfwd sq i32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'jacfwd sq i32 allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd sq f32v default': ('value', [('float32', [[1.0, 0.0], [0.0, 3.0]])]),
    'jacfwd sq f32v holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacfwd sq f32v allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd sq c64v default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacfwd sq c64v holomorphic': ('value', [('complex64', [[[2.0, 4.0], [0.0, 0.0]], [[0.0, -0.0], [0.0, -1.0]]])]),
    'jacfwd sq c64v allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd abs2 f32 default': ('value', [('float32', 3.0)]),
    'jacfwd abs2 f32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacfwd abs2 f32 allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd abs2 c64 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacfwd abs2 c64 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires outputs with complex dtype, but got float32.'),
    'jacfwd abs2 c64 allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd abs2 i32 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got int32.'),
    'jacfwd abs2 i32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'jacfwd abs2 i32 allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd abs2 f32v default': ('value', [('float32', [1.0, 3.0])]),
    'jacfwd abs2 f32v holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacfwd abs2 f32v allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd abs2 c64v default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacfwd abs2 c64v holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires outputs with complex dtype, but got float32.'),
    'jacfwd abs2 c64v allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd cscale f32 default': ('value', [('complex64', [1.0, 2.0])]),
    'jacfwd cscale f32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacfwd cscale f32 allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd cscale c64 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacfwd cscale c64 holomorphic': ('value', [('complex64', [1.0, 2.0])]),
    'jacfwd cscale c64 allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd cscale i32 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got int32.'),
    'jacfwd cscale i32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'jacfwd cscale i32 allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd cscale f32v default': ('value', [('complex64', [[1.0, 2.0], [1.0, 2.0]])]),
    'jacfwd cscale f32v holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacfwd cscale f32v allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd cscale c64v default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacfwd cscale c64v holomorphic': ('value', [('complex64', [[1.0, 2.0], [1.0, 2.0]])]),
    'jacfwd cscale c64v allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd to_int f32 default': ('value', [('int32', 0)]),
    'jacfwd to_int f32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacfwd to_int f32 allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd to_int c64 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacfwd to_int c64 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires outputs with complex dtype, but got int32.'),
    'jacfwd to_int c64 allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd to_int i32 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got int32.'),
    'jacfwd to_int i32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'jacfwd to_int i32 allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd to_int f32v default': ('value', [('int32', [0, 0])]),
    'jacfwd to_int f32v holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacfwd to_int f32v allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd to_int c64v default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacfwd to_int c64v holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires outputs with complex dtype, but got int32.'),
    'jacfwd to_int c64v allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd sin_sum f32 default': ('value', [('float32', 0.07073719799518585)]),
    'jacfwd sin_sum f32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacfwd sin_sum f32 allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd sin_sum c64 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacfwd sin_sum c64 holomorphic': ('value', [('complex64', [2.0327229499816895, -3.0518977642059326])]),
    'jacfwd sin_sum c64 allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd sin_sum i32 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got int32.'),
    'jacfwd sin_sum i32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'jacfwd sin_sum i32 allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd sin_sum f32v default': ('value', [('float32', [0.8775825500488281, 0.07073719799518585])]),
    'jacfwd sin_sum f32v holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'jacfwd sin_sum f32v allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'jacfwd sin_sum c64v default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'jacfwd sin_sum c64v holomorphic': ('value', [('complex64', [[2.0327229499816895, -3.0518977642059326], [1.1276259422302246, 0.0]])]),
    'jacfwd sin_sum c64v allow_int': ('raise', 'TypeError', "jacfwd() got an unexpected keyword argument 'allow_int'."),
    'hessian sq f32 default': ('value', [('float32', 2.0)]),
    'hessian sq f32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'hessian sq f32 allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian sq c64 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'hessian sq c64 holomorphic': ('value', [('complex64', [2.0, 0.0])]),
    'hessian sq c64 allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian sq i32 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got int32.'),
    'hessian sq i32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'hessian sq i32 allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian sq f32v default': ('value', [('float32', [[[2.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 2.0]]])]),
    'hessian sq f32v holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'hessian sq f32v allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian sq c64v default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'hessian sq c64v holomorphic': ('value', [('complex64', [[[[2.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]], [[[0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [2.0, 0.0]]]])]),
    'hessian sq c64v allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian abs2 f32 default': ('value', [('float32', 2.0)]),
    'hessian abs2 f32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'hessian abs2 f32 allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian abs2 c64 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'hessian abs2 c64 holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires outputs with complex dtype, but got float32.'),
    'hessian abs2 c64 allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian abs2 i32 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got int32.'),
    'hessian abs2 i32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'hessian abs2 i32 allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian abs2 f32v default': ('value', [('float32', [[2.0, 0.0], [0.0, 2.0]])]),
    'hessian abs2 f32v holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'hessian abs2 f32v allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian abs2 c64v default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'hessian abs2 c64v holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires outputs with complex dtype, but got float32.'),
    'hessian abs2 c64v allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian cscale f32 default': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'hessian cscale f32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'hessian cscale f32 allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian cscale c64 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'hessian cscale c64 holomorphic': ('value', [('complex64', [0.0, 0.0])]),
    'hessian cscale c64 allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian cscale i32 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got int32.'),
    'hessian cscale i32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'hessian cscale i32 allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian cscale f32v default': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64.'),
    'hessian cscale f32v holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'hessian cscale f32v allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian cscale c64v default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'hessian cscale c64v holomorphic': ('value', [('complex64', [[[0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]])]),
    'hessian cscale c64v allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian to_int f32 default': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'hessian to_int f32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'hessian to_int f32 allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian to_int c64 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'hessian to_int c64 holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires outputs with complex dtype, but got int32.'),
    'hessian to_int c64 allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian to_int i32 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got int32.'),
    'hessian to_int i32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'hessian to_int i32 allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian to_int f32v default': ('raise', 'TypeError', 'jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got int32.'),
    'hessian to_int f32v holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'hessian to_int f32v allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian to_int c64v default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'hessian to_int c64v holomorphic': ('raise', 'TypeError', 'jacrev with holomorphic=True requires outputs with complex dtype, but got int32.'),
    'hessian to_int c64v allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian sin_sum f32 default': ('value', [('float32', -0.9974949955940247)]),
    'hessian sin_sum f32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'hessian sin_sum f32 allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian sin_sum c64 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'hessian sin_sum c64 holomorphic': ('value', [('complex64', [-3.165778636932373, -1.9596009254455566])]),
    'hessian sin_sum c64 allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian sin_sum i32 default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got int32.'),
    'hessian sin_sum i32 holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got int32.'),
    'hessian sin_sum i32 allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian sin_sum f32v default': ('value', [('float32', [[-0.4794255495071411, -0.0], [-0.0, -0.9974949955940247]])]),
    'hessian sin_sum f32v holomorphic': ('raise', 'TypeError', 'jacfwd with holomorphic=True requires inputs with complex dtype, but got float32.'),
    'hessian sin_sum f32v allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
    'hessian sin_sum c64v default': ('raise', 'TypeError', 'jacfwd requires real-valued inputs (input dtype that is a sub-dtype of np.floating), but got complex64.'),
    'hessian sin_sum c64v holomorphic': ('value', [('complex64', [[[-3.165778636932373, -1.9596009254455566], [0.0, -0.0]], [[0.0, -0.0], [-0.0, 0.5210952758789062]]])]),
    'hessian sin_sum c64v allow_int': ('raise', 'TypeError', "hessian() got an unexpected keyword argument 'allow_int'."),
}


@pytest.mark.parametrize("case", CASES)
def test_dtype_rules_as_jax(case):
    want = JAX[case]
    got = _run(astjax, case)
    assert got[0] == want[0], (case, got, want)
    if want[0] == "raise":
        assert got[1:] == want[1:], (case, got, want)
        return
    assert len(got[1]) == len(want[1]), (case, got, want)
    for (gd, gv), (wd, wv) in zip(got[1], want[1]):
        assert gd == wd, (case, gd, wd)
        if "float0" in gd:   # no numbers: the (empty) records themselves
            assert gv == wv, (case, gv, wv)
            continue
        np.testing.assert_allclose(np.asarray(gv, float), np.asarray(wv, float),
                                   rtol=1e-5, atol=1e-6, err_msg=case)


def test_complex_output_error_is_located_and_a_type_error():
    """The error points at the call in this file and is astjax's and Python's class."""
    with pytest.raises(TypeError) as info:
        astjax.grad(cscale)(np.float32(1.0))
    e = info.value
    assert isinstance(e, astjax.errors.AstjaxError)
    assert e.loc.file == __file__, e.loc
    assert "holomorphic=True" in str(e)


def test_input_dtype_checked_before_staging():
    """As JAX checks dtypes before tracing: a function that cannot stage on an int
    input still reports the dtype rule."""
    def needs_float(x):
        return jnp.finfo(x.dtype).eps * x

    with pytest.raises(TypeError, match="real- or complex-valued inputs"):
        astjax.grad(needs_float)(np.int32(1))


def int_and_sin(x):
    return jnp.round(x).astype(jnp.int32), jnp.sin(x)


def sin_int_double(x):
    return jnp.sin(x), jnp.round(x).astype(jnp.int32), x * 2.0


def scaled_sin_sum(x, n):
    return jnp.sum(jnp.sin(x)) * 2.0


def test_jacobians_of_mixed_outputs_and_integer_inputs():
    """Integer outputs among float ones (jacfwd: zeros of the output's dtype, in their
    place) and an integer input under jacrev(allow_int=True) (zeros of its dtype); the
    values are JAX 0.10.2's."""
    x = np.array([0.5, 1.5], np.float32)
    cos = [[0.8775825500488281, 0.0], [0.0, 0.07073719799518585]]
    zeros = [[0, 0], [0, 0]]

    def check(got, want):
        assert len(got) == len(want)
        for g, (dt, v) in zip(got, want):
            assert np.asarray(g).dtype == dt
            np.testing.assert_allclose(np.asarray(g), v, rtol=1e-6)

    check(astjax.jacfwd(int_and_sin)(x), [(np.int32, zeros), (np.float32, cos)])
    check(astjax.jacfwd(sin_int_double)(x),
          [(np.float32, cos), (np.int32, zeros), (np.float32, [[2.0, 0.0], [0.0, 2.0]])])
    check(astjax.jacrev(scaled_sin_sum, argnums=(0, 1), allow_int=True)(x, np.int32(2)),
          [(np.float32, [1.7551651000976562, 0.1414743959903717]), (np.int32, 0)])
    check(astjax.jacfwd(int_and_sin)(np.float32(0.3)),
          [(np.int32, 0), (np.float32, 0.9553365111351013)])



@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_narrow_float_outputs_and_inputs_are_differentiable(dtype):
    # ml_dtypes' floats are opaque void types to NumPy; JAX counts them as np.floating
    # (optax's test_preserve_dtype / test_gradient_accumulation take grad in bfloat16)
    dt = np.dtype(getattr(jnp, dtype))
    x = jnp.ones((3,), dt)
    g = astjax.grad(lambda v: (v * v).sum())(x)
    assert g.dtype == dt
    np.testing.assert_array_equal(np.asarray(g, np.float32), [2.0, 2.0, 2.0])
    j = astjax.jacfwd(lambda v: v * 3)(x)
    assert j.dtype == dt and j.shape == (3, 3)


if __name__ == "__main__" and "--record" in sys.argv:
    record()
