"""`jax.custom_derivatives`: custom differentiation rules (`custom_jvp`,
`custom_vjp`, `custom_gradient`, `closure_convert`), their primitives, and the
symbolic-zero types a rule written with `symbolic_zeros=True` receives."""
from astjax.custom_api import custom_jvp, custom_vjp  # noqa: F401
from astjax.ad_extras import custom_gradient  # noqa: F401
from astjax import numpy as jnp
from astjax import tree_util
from astjax.core import inline_jaxpr
from astjax.staging import stage_callable
from astjax.primitives.custom_derivatives import (CustomVJPPrimal, SymbolicZero,  # noqa: F401
                                                  custom_jvp_call_p, custom_vjp_call_p)


def zero_from_primal(x, symbolic_zeros=False):
    """A zero tangent for `x`: symbolic, or a zero array."""
    return SymbolicZero.from_primal_value(x) if symbolic_zeros else jnp.zeros_like(x)


def closure_convert(fun, *example_args):
    """JAX's `closure_convert`: (`converted`, `consts`) where `converted(*args,
    *consts)` computes `fun(*args)` with the arrays `fun` closes over (staged values
    included) passed explicitly, so they can be differentiated."""
    closed, out_tree, _ = stage_callable(fun, example_args)
    consts = list(closed.consts)
    n_args = len(tree_util.tree_leaves(example_args))

    def converted(*args_and_consts):
        args, cs = args_and_consts[:len(example_args)], args_and_consts[len(example_args):]
        leaves = tree_util.flatten_for_staging(args)[0]
        if len(leaves) != n_args:
            raise TypeError(f"closure_convert: expected {n_args} argument leaves, got "
                            f"{len(leaves)}")
        outs = inline_jaxpr(closed.jaxpr, list(cs), leaves)
        return tree_util.tree_unflatten(out_tree, outs)
    return converted, consts
