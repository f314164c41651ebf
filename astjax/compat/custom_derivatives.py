"""`jax.custom_derivatives`: custom differentiation rules (`custom_jvp`,
`custom_vjp`, `custom_gradient`, `closure_convert`, `linear_call`), their primitives, and the
symbolic-zero types a rule written with `symbolic_zeros=True` receives.

`remat_opt_p` is the primitive of `custom_vjp.defvjp(..., optimize_remat=True)`: the
forward rule staged as one equation, replaced by the primal function where its
residuals are not used (astjax/primitives/remat_opt.py)."""
from astjax.custom_api import custom_jvp, custom_vjp, linear_call  # noqa: F401
from astjax.primitives.remat_opt import remat_opt_p  # noqa: F401
from astjax.ad_extras import custom_gradient  # noqa: F401
from astjax.compat._src.ad_util import zero_from_primal  # noqa: F401
from astjax import tree_util as _tree_util
from astjax.errors import ArgumentTypeError as _ArgumentTypeError
from astjax.core import inline_jaxpr as _inline_jaxpr
from astjax.staging import stage_callable as _stage_callable
from astjax.primitives.custom_derivatives import (CustomVJPPrimal, SymbolicZero,  # noqa: F401
                                                  custom_jvp_call_p, custom_vjp_call_p)


def closure_convert(fun, *example_args):
    """JAX's `closure_convert`: (`converted`, `consts`) where `converted(*args,
    *consts)` computes `fun(*args)` with the arrays `fun` closes over (staged values
    included) passed explicitly, so they can be differentiated."""
    closed, out_tree, _ = _stage_callable(fun, example_args)
    consts = list(closed.consts)
    n_args = len(_tree_util.tree_leaves(example_args))

    def converted(*args_and_consts):
        args, cs = args_and_consts[:len(example_args)], args_and_consts[len(example_args):]
        leaves = _tree_util.flatten_for_staging(args)[0]
        if len(leaves) != n_args:
            raise TypeError(f"closure_convert: expected {n_args} argument leaves, got "
                            f"{len(leaves)}")
        outs = _inline_jaxpr(closed.jaxpr, list(cs), leaves)
        return _tree_util.tree_unflatten(out_tree, outs)
    return converted, consts


def custom_vjp_primal_tree_values(tree):
    """The primal values of a `custom_vjp` fwd rule's arguments defined with
    `symbolic_zeros=True`: each `CustomVJPPrimal` leaf of `tree` replaced by its
    `value` (any other leaf is JAX's TypeError)."""
    def value(leaf):
        if type(leaf) is not CustomVJPPrimal:
            raise _ArgumentTypeError(f"unexpected leaf type {type(leaf)}",
                                    hint="pass the argument tree a symbolic_zeros fwd rule "
                                         "received (CustomVJPPrimal leaves)")
        return leaf.value
    return _tree_util.tree_map(value, tree)
