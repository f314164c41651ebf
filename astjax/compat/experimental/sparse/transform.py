"""`jax.experimental.sparse.transform`: `sparsify(f)`, which runs `f` with `BCOO`
arguments by staging it on their dense stand-ins and evaluating the resulting jaxpr
with a sparse rule for every equation that reads a sparse value (JAX's interpreter:
equations on dense values only are bound as they are).

`cond`, `while` and `scan` (over carries only, as JAX's rule) are staged again with
the sparse operands, their bodies evaluated with the same rules. What JAX's rules
refuse is refused here with JAX's error class and words (`NotImplementedError`): an
operation whose result would be dense (`cos`, `exp`, comparisons, ...),
`sparse + scalar`, `sparse - dense`, division by a sparse array, a scan over sparse
or dense `xs`.

A `BCSR` operand has JAX's smaller rule set: the zero-preserving elementwise
operations, positive `integer_pow`, `dot_general` with a dense right operand,
`broadcast_in_dim` and `concatenate` (computed on the equivalent BCOO) and
`sparse.todense`; inner `jit`s are inlined."""
from __future__ import annotations

import functools

from astjax import api as _api
from astjax.custom_api import custom_jvp as _custom_jvp
from astjax import core as _core
from astjax import lax as _lax
from astjax import numpy as _jnp
from astjax import tree_util as _tree_util
from astjax.errors import JAXValueError as _JAXValueError
from astjax.errors import NotImplementedInAstjaxError as _NotImplemented

from .bcoo import BCOO
from .bcoo import JAXSparse as _JAXSparse
from .bcoo import _validate
from .bcsr import BCSR as _BCSR
from .bcsr import bcsr_dot_general as _bcsr_dot_general
from .bcoo import bcoo_multiply_dense as _bcoo_multiply_dense
from .bcoo import bcoo_reduce_sum as _bcoo_reduce_sum
from .bcoo import bcoo_sum_duplicates as _bcoo_sum_duplicates
from .bcoo import bcoo_transpose as _bcoo_transpose
from .bcoo import bcoo_concatenate as _bcoo_concatenate
from . import _bcoo_slicing as _slicing
from .bcoo import bcoo_dot_general as _bcoo_dot_general
from ._bcoo_products import bcoo_multiply_sparse as _bcoo_multiply_sparse
from .api import todense_p as _todense_p
from .util import _SparseAssertionError

__all__ = ["sparsify"]

# elementwise primitives with f(0) == 0: applied to the stored data only; the linear
# ones commute with summing duplicate indices, the others need unique indices first
_LINEAR_UNARY = {"conj", "copy", "imag", "neg", "real"}
_UNARY = {"abs", "asin", "asinh", "atan", "atanh", "bessel_i1e", "expm1", "log1p", "sign",
          "sin", "sinh", "sqrt", "square", "tan", "tanh", "convert_element_type"}
# primitives whose result on a sparse operand is dense: refused, as JAX refuses them
_DENSIFYING = {"acos", "acosh", "bessel_i0e", "cos", "cosh", "eq", "exp", "ge", "gt", "le",
               "lt", "log", "ne", "xor"}


def _unimplemented(prim):
    if prim.name in _DENSIFYING:
        raise _NotImplemented(
            f"sparse rule for {prim.name} is not implemented because it would result in "
            "dense output. If this is your intent, use sparse.todense() to convert your "
            "arguments to dense matrices.")
    raise _NotImplemented(f"sparse rule for {prim.name} is not implemented.")


def _with_data(mat, data, **flags):
    """A sparse array of `mat`'s format and indices (the same reference: see
    `_same_indices`) and `data`."""
    flags = {"indices_sorted": mat.indices_sorted, "unique_indices": mat.unique_indices,
             **flags}
    out = type(mat)((data, *mat.tree_flatten()[0][1:]), shape=mat.shape, **flags)
    out._indices_ref = getattr(mat, "_indices_ref", None)
    return out


def _same_indices(x, y):
    """Whether `x` and `y` hold one index buffer by construction (JAX's `indices_ref`:
    each argument of the sparsified function has its own, even if it is one array)."""
    return (x.indices is y.indices
            and getattr(x, "_indices_ref", None) is getattr(y, "_indices_ref", None))


def _unique(mat):
    """`mat` with duplicate indices summed (nse kept) unless known unique."""
    if mat.unique_indices:
        return mat
    if isinstance(mat, _BCSR):   # (JAX's BCSR result: no flags set)
        return _BCSR.from_bcoo(_bcoo_sum_duplicates(mat.to_bcoo(), nse=mat.nse))
    return _bcoo_sum_duplicates(mat, nse=mat.nse)


def _unary(prim, linear):
    def rule(x, **params):
        x = x if linear else _unique(x)
        return _with_data(x, _core.bind(prim, x.data, **params))
    return rule


def _add(x, y):
    if isinstance(x, BCOO) and isinstance(y, BCOO):
        if x.shape != y.shape:
            raise _NotImplemented("Addition between sparse matrices of different shapes.")
        if _same_indices(x, y):
            return _with_data(x, x.data + y.data)
        if x.indices.ndim != y.indices.ndim or x.data.ndim != y.data.ndim:
            raise _NotImplemented(
                "Addition between sparse matrices with different batch/dense dimensions.")
        axis = x.indices.ndim - 2
        return BCOO((_jnp.concatenate([x.data, y.data], axis),
                     _jnp.concatenate([x.indices, y.indices], axis)), shape=x.shape)
    sp, dense = (x, y) if isinstance(x, BCOO) else (y, x)
    dense = _jnp.asarray(dense)
    if dense.shape != _jnp.broadcast_shapes(sp.shape, dense.shape):
        raise _NotImplemented(
            "Addition between a sparse array X and a dense array Y is not implemented when "
            "the output shape is larger than Y.shape. This is to prevent silent "
            "densification of a large sparse array. If this is your intent, you can "
            "explicitly cast the sparse array to a dense matrix.")
    return sp.todense() + dense


def _sub(x, y):
    if isinstance(x, BCOO) and isinstance(y, BCOO):
        return _add(x, _with_data(y, -y.data))
    raise _NotImplemented("Subtraction between sparse and dense array.")


def _mul(x, y, out_dtype=None):
    if out_dtype is not None:   # (lax.mul's mixed-precision result type)
        x, y = (v.astype(out_dtype) for v in (x, y))
    if isinstance(x, BCOO) and isinstance(y, BCOO):
        if _same_indices(x, y) and x.unique_indices:
            return _with_data(x, x.data * y.data, unique_indices=True)
        return _bcoo_multiply_sparse(x, y)
    sp, dense = (x, y) if isinstance(x, BCOO) else (y, x)
    return _with_data(sp, _bcoo_multiply_dense(sp, dense))


def _div(x, y):
    if isinstance(y, BCOO):
        raise _NotImplemented(
            "Division by a sparse array is not implemented because it would result in "
            "dense output. If this is your intent, use sparse.todense() to convert your "
            "arguments to a dense array.")
    return _with_data(x, _bcoo_multiply_dense(x, 1. / _jnp.asarray(y)))


def _reduce_sum(x, *, axes, out_sharding=None):
    del out_sharding
    out = _bcoo_reduce_sum(x, axes=axes)
    return out.data.sum() if out.shape == () else out


def _transpose(x, *, permutation):
    """JAX's rule: a permutation of the dense axes only keeps the indices (their
    reference too: `x.transpose(p) + x` adds the data, as JAX's)."""
    out = _bcoo_transpose(x, permutation=tuple(permutation))
    if tuple(permutation[:x.n_batch + x.n_sparse]) == tuple(range(x.n_batch + x.n_sparse)):
        out = _with_data(x, out.data, indices_sorted=out.indices_sorted,
                         unique_indices=out.unique_indices)
    return out


def _dot_general(lhs, rhs, *, dimension_numbers, precision=None,
                 preferred_element_type=None, out_sharding=None):
    return _bcoo_dot_general(lhs, rhs, dimension_numbers=dimension_numbers,
                            precision=precision, preferred_element_type=preferred_element_type,
                            out_sharding=out_sharding)


def _integer_pow(x, *, y):
    if y <= 0:
        raise _NotImplemented(
            f"sparse rule for integer_pow with non-positive exponent {y} is not implemented "
            "because it would result in dense output. If this is your intent, use "
            "sparse.todense() to convert your argument to a dense array.")
    x = _unique(x)
    return _with_data(x, x.data ** y)


def _dynamic_slice(x, *starts, slice_sizes):
    if any(isinstance(i, _JAXSparse) for i in starts):
        raise _NotImplemented("sparse rule for dynamic_slice with sparse start indices "
                              "is not implemented.")
    return _slicing.bcoo_dynamic_slice(x, starts, slice_sizes)


def _gather(operand, start_indices, **params):
    if isinstance(start_indices, _JAXSparse):
        raise _NotImplemented("sparse rule for gather with sparse indices is not implemented.")
    return _slicing.bcoo_gather(operand, start_indices, **params)


def _jaxpr_fn(closed):
    """A closed jaxpr as a function, evaluated with the sparse rules."""
    return lambda *args: tuple(_eval_sparse(closed.jaxpr, closed.consts, list(args)))


def _cond(index, *operands, branches, **params):
    del params
    if isinstance(index, _JAXSparse):
        _unimplemented_sparse_operand("cond predicate")
    return list(_lax.switch(index, [_jaxpr_fn(b) for b in branches], *operands))


def _while(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cond_consts = args[:cond_nconsts]
    body_consts = args[cond_nconsts:cond_nconsts + body_nconsts]
    init = tuple(args[cond_nconsts + body_nconsts:])
    test, body = _jaxpr_fn(cond_jaxpr), _jaxpr_fn(body_jaxpr)
    return list(_lax.while_loop(lambda c: test(*cond_consts, *c)[0],
                                lambda c: body(*body_consts, *c), init))


def _scan(*args, jaxpr, length, reverse, num_consts, num_carry, unroll=1, **params):
    """A scan over carries only, as JAX's rule: scanned inputs raise its
    NotImplementedError, stacked outputs its ValueError."""
    del params
    consts, carry = args[:num_consts], tuple(args[num_consts:num_consts + num_carry])
    if len(args) > num_consts + num_carry:
        raise _NotImplemented("sparse rule for scan with x values.")
    if len(jaxpr.jaxpr.outvars) > num_carry:
        raise _JAXValueError("sparsify: a scan with stacked outputs (ys) is not supported "
                             "(JAX 0.10.2's rule fails on it as well)",
                             hint="return the values in the carry instead")
    step = _jaxpr_fn(jaxpr)
    carry, _ = _lax.scan(lambda c, _x: (step(*consts, *c), None), carry, None,
                         length=length, reverse=reverse, unroll=unroll)
    return list(carry)


def _custom_jvp_call(*args, call_jaxpr, num_consts, **params):
    """The function evaluated with the sparse rules, as a `custom_jvp` function of the
    flat buffers (JAX's rule). Its derivative is refused with JAX's AssertionError: JAX's
    rule hands the dense values' JVP rule the sparse buffers."""
    del num_consts, params
    leaves, tree = _tree_util.tree_flatten(list(args))
    out_tree = []

    @_custom_jvp
    def call(*flat):
        outs = _jaxpr_fn(call_jaxpr)(*_tree_util.tree_unflatten(tree, list(flat)))
        flat_outs, t = _tree_util.tree_flatten(list(outs))
        out_tree.append(t)
        return tuple(flat_outs)

    @call.defjvp
    def _jvp(primals, tangents):
        raise _SparseAssertionError(
            "differentiating a custom_jvp function under sparsify: its JVP rule is "
            "written for dense values, and JAX's sparse rule applies it to the sparse "
            "buffers (an AssertionError there)",
            hint="differentiate outside sparsify, or with sparse.todense")
    flat_outs = call(*leaves)
    return _tree_util.tree_unflatten(out_tree[-1], list(flat_outs))


def _unimplemented_sparse_operand(what):
    raise _NotImplemented(f"sparse rule with a sparse {what} is not implemented.")


def _concatenate(*operands, dimension):
    return _bcoo_concatenate(operands, dimension=dimension)


def _stack(*operands, axis):
    # (jnp.stack's primitive: each operand given the new axis, then concatenated, as
    # JAX's sparsify sees jnp.stack)
    def expanded(x):
        shape = list(x.shape)
        shape.insert(axis, 1)
        return _slicing.bcoo_broadcast_in_dim(
            x, shape=tuple(shape), broadcast_dimensions=tuple(
                i for i in range(len(shape)) if i != axis))
    return _bcoo_concatenate([expanded(x) for x in operands], dimension=axis)


_RULES = {"add": _add, "sub": _sub, "mul": _mul, "div": _div, "reduce_sum": _reduce_sum,
          "transpose": _transpose, "dot_general": _dot_general, "integer_pow": _integer_pow,
          "slice": _slicing.bcoo_slice, "dynamic_slice": _dynamic_slice,
          "squeeze": _slicing.bcoo_squeeze, "rev": _slicing.bcoo_rev,
          "broadcast_in_dim": _slicing.bcoo_broadcast_in_dim,
          "reshape": _slicing.bcoo_reshape, "concatenate": _concatenate, "stack": _stack,
          "gather": _gather, "cond": _cond, "while": _while, "scan": _scan,
          "custom_jvp_call": _custom_jvp_call}


def _sparse_rule(prim, rules):
    """The rule of `prim` in `rules` (`_RULES` for BCOO operands, `_BCSR_RULES` for
    BCSR ones), the elementwise rules shared by both, or JAX's refusal."""
    if prim is _todense_p:   # (`sparse.todense` inside `f`: the one densifying rule)
        return lambda x, **params: x.todense()
    if prim.name in rules:
        return rules[prim.name]
    if prim.name in _UNARY or prim.name in _LINEAR_UNARY:
        return _unary(prim, prim.name in _LINEAR_UNARY)
    if prim.name in ("jit", "closed_call", "pjit"):
        return functools.partial(_inner_call, prim)
    _unimplemented(prim)


def _inner_call(prim, *args, **params):
    """An inner `jit` (or closed call): its jaxpr evaluated with the sparse rules."""
    jaxpr = params.get("jaxpr", params.get("call_jaxpr"))
    if jaxpr is None:
        _unimplemented(prim)
    consts = getattr(jaxpr, "consts", ())
    return _eval_sparse(getattr(jaxpr, "jaxpr", jaxpr), consts, args)


def _bcsr_broadcast_in_dim(x, **params):
    return _BCSR.from_bcoo(_slicing.bcoo_broadcast_in_dim(x.to_bcoo(), **params))


def _bcsr_concatenate(*operands, dimension):
    if not all(isinstance(x, _BCSR) for x in operands):
        raise _NotImplemented("sparse rule for concatenate of BCSR and other arrays "
                              "is not implemented.")
    return _BCSR.from_bcoo(_bcoo_concatenate([x.to_bcoo() for x in operands],
                                             dimension=dimension))


# JAX's `sparse_rules_bcsr` (with the elementwise rules and inner jits of `_sparse_rule`)
_BCSR_RULES = {"integer_pow": _integer_pow, "dot_general": _bcsr_dot_general,
               "broadcast_in_dim": _bcsr_broadcast_in_dim, "concatenate": _bcsr_concatenate}


def _interpret(eqn, ins):
    if not any(isinstance(x, _JAXSparse) for x in ins):
        return _core.bind(eqn.primitive, *ins, **eqn.params)
    with _core.source_info_context(eqn.source_info):
        rules = _BCSR_RULES if any(isinstance(x, _BCSR) for x in ins) else _RULES
        return _sparse_rule(eqn.primitive, rules)(*ins, **eqn.params)


def _eval_sparse(jaxpr, consts, args):
    return _core.eval_reference(jaxpr, consts, *args, interpret_eqn=_interpret)


def _own_indices(mat):
    if isinstance(mat, BCOO):
        _validate(mat)
    out = _with_data(mat, mat.data)
    out._indices_ref = object()
    return out


def _is_sparse(x):
    return isinstance(x, _JAXSparse)


def sparsify(f, use_tracer: bool = False):
    """`f` made to accept `BCOO` (and `BCSR`) arrays in place of dense ones (JAX's
    `sparse.sparsify`): operations on sparse values give sparse results where JAX's
    do (`@` with a dense operand gives a dense one), and raise JAX's
    `NotImplementedError` where a result would be dense. `use_tracer` is accepted
    and has no effect (one implementation, JAX's interpreter)."""
    del use_tracer

    @functools.wraps(f)
    def wrapped(*args, **params):
        leaves, tree = _tree_util.tree_flatten(args, is_leaf=_is_sparse)
        leaves = [_own_indices(x) if _is_sparse(x) else x for x in leaves]
        stand_ins = [_api.ShapeDtypeStruct(x.shape, x.dtype) if _is_sparse(x) else x
                     for x in leaves]
        closed, out_shape = _api.make_jaxpr(
            lambda *a: f(*a, **params), return_shape=True)(
                *_tree_util.tree_unflatten(tree, stand_ins))
        outs = _eval_sparse(closed.jaxpr, closed.consts, leaves)
        return _tree_util.tree_unflatten(_tree_util.tree_structure(out_shape), outs)
    return wrapped

