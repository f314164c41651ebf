"""`composite`: an operation named for the compiler and defined by its decomposition.

`lax.composite(decomposition, name, version)` returns a function whose positional
arguments are the operation's operands and whose keyword arguments are its
attributes. It binds `composite_p` with the staged decomposition; the lowering is one
`stablehlo.composite` op naming a private function that holds the decomposition, so
a backend that knows `name` may substitute its own kernel and any other backend runs
the decomposition. As in JAX there is no derivative (a located ValueError pointing to
`custom_jvp`) and no batching rule.
"""
from __future__ import annotations

import functools

import numpy as np

from .. import core, tree_util
from ..core import bind
from ..errors import ArgumentValueError, JAXTypeError, NotImplementedInAstjaxError
from ..mlir_attributes import dictionary_text
from .base import mark_unsupported, private_function, register

__all__ = ["composite_p"]

composite_p = core.new_primitive("composite", multiple_results=True)


class _ArrayAttribute:
    """A NumPy array attribute, hashable (equation params are compared and hashed)."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = np.asarray(array)

    def __hash__(self):
        return hash((self.array.dtype.str, self.array.shape, self.array.tobytes()))

    def __eq__(self, other):
        return (isinstance(other, _ArrayAttribute) and self.array.dtype == other.array.dtype
                and np.array_equal(self.array, other.array))

    def __repr__(self):
        return repr(self.array.tolist())


def _attribute_values(attributes):
    return {k: v.array if isinstance(v, _ArrayAttribute) else v for k, v in attributes}


def _composite_lowering(ctx, *args, name, attributes, version, jaxpr):
    fname = private_function(ctx, jaxpr, lambda slot: "".join(
        c if c.isalnum() else "_" for c in name) + f"_{slot}")
    attrs = {"name": '"' + name + '"',
             "composite_attributes": dictionary_text(_attribute_values(attributes)),
             "decomposition": f"@{fname}", "version": f"{int(version)} : i32"}
    return ctx.op("stablehlo.composite", list(args), ctx.avals_out, attrs)


def _composite_jvp(primals, tangents, *, name, **params):
    raise ArgumentValueError(f"JVP rule for composite not implemented (composite {name!r}). "
                             "You can use `jax.custom_jvp` to add support.",
                             hint="wrap the composite in a custom_jvp function")


def _composite_transpose(cts, *args, name, **params):
    raise ArgumentValueError(f"Transpose rule for composite not implemented (composite "
                             f"{name!r}). You can use `jax.custom_jvp` or `jax.custom_vjp` "
                             "to add support.")


register(composite_p,
         impl=lambda *args, jaxpr, **params: core.eval_reference(jaxpr.jaxpr, jaxpr.consts, *args),
         abstract_eval=lambda *avals, jaxpr, **params: [v.aval for v in jaxpr.jaxpr.outvars],
         lowering=_composite_lowering, jvp=_composite_jvp, transpose=_composite_transpose)
mark_unsupported(composite_p, "batch", "JAX has no batching rule for composite either: "
                                       "vmap the decomposition instead")


def composite(decomposition, name, version=0):
    """`lax.composite`: `decomposition` as one named compiler operation. The returned
    function takes the operands positionally and the op's attributes as keywords
    (static values: numbers, strings, NumPy arrays; `None` is left out)."""
    @functools.wraps(decomposition)
    def call(*args, **kwargs):
        for k, v in kwargs.items():
            if isinstance(v, core.Tracer):
                raise JAXTypeError(f"Found a staged value as the attribute {k!r} of the "
                                   f"composite op {name!r}: attributes must be known at "
                                   "compile time", hint="pass it as a positional operand, "
                                                        "or as a NumPy array")
        leaves, in_tree = tree_util.tree_flatten(args)
        leaves = [np.asarray(x) if isinstance(x, (list, tuple)) else x for x in leaves]
        avals = [core.get_aval(x) for x in leaves]
        body = functools.partial(decomposition, **kwargs)
        jaxpr, consts, out_tree = core.stage_callable(body, in_tree, avals)
        closed = core.closure_convert(jaxpr)
        attributes = tuple((k, _ArrayAttribute(v) if isinstance(v, np.ndarray) else v)
                           for k, v in kwargs.items() if v is not None)
        outs = bind(composite_p, *consts, *leaves, name=str(name), attributes=attributes,
                    version=int(version), jaxpr=closed)
        if out_tree is None:
            raise NotImplementedInAstjaxError(f"composite {name!r}: the decomposition returned "
                                              "no arrays")
        return tree_util.tree_unflatten(out_tree, outs)
    return call
