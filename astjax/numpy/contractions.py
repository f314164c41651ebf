"""Products: dot, matmul (`@`), vdot, inner, outer, tensordot, einsum, kron —
all onto the one dot_general primitive."""
from __future__ import annotations

import functools
import string

import numpy as np

from .. import core, dtypes, lax
from ..errors import ArgumentTypeError, ArgumentValueError, ShapeError, ShapeValueError
from ..primitives.spmd import reshard as _reshard
from ..primitives.structural import out_layout as _out_layout
from .einsum_paths import contraction_path
from .operands import jax_array_protocol
from .shapes import diagonal, ravel, _reshape as reshape, transpose
from .util import canonicalize_axes, library_jit as _library_jit
from .ufuncs import (_no_out, asarray_operand, broadcast_shapes, conjugate, multiply,
                     promote_dtypes)
from ..typing import Array


def _prep(a, b, preferred_element_type=None):
    """The operands as arrays of one dtype; with a `preferred_element_type`, as JAX, each
    keeps its own (dot_general converts mixed operands to that type, so float operands
    with an integer one are truncated before they multiply)."""
    a, b = asarray_operand(a), asarray_operand(b)
    if preferred_element_type is None:
        a, b = promote_dtypes(a, b)
    return a, b, core.get_aval(a), core.get_aval(b)


def _pet(preferred_element_type, a):
    """The `preferred_element_type` jnp's contractions give dot_general: the caller's, else
    the (promoted) operands' dtype, as JAX's jnp passes its result type."""
    return core.get_aval(a).dtype if preferred_element_type is None else preferred_element_type


def _check_integer_width(name, a, b):
    """JAX's dot accumulates in the promoted dtype as dot_general's
    `preferred_element_type`, which may not be a narrower integer than an operand:
    a weak Python int (int32; int64 with x64) against a narrower integer array
    (`jnp.dot(uint8, 2)`, also `tensordot`) is a TypeError; floating results have no
    such limit."""
    ops = [asarray_operand(x) for x in (a, b)]
    avs = [core.get_aval(x) for x in ops]
    want = core.get_aval(promote_dtypes(*ops)[0]).dtype
    if not np.issubdtype(want, np.integer):
        return
    widest = max((v.dtype for v in avs), key=lambda d: np.dtype(d).itemsize)
    if np.dtype(widest).itemsize > np.dtype(want).itemsize:
        raise ArgumentTypeError(
            f"{name}: the result dtype {np.dtype(want).name} is narrower than the operand "
            f"dtype {np.dtype(widest).name}: JAX's dot accumulates in the result dtype "
            "and refuses to narrow an integer operand",
            hint="pass the scalar as an array of the other operand's dtype, or give "
                 "preferred_element_type= a dtype as wide as both")


def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None) -> Array:
    """Dot product: sums over the last axis of `a` and the second-to-last of `b`.

    Args:
      a, b: arrays (0-d operands are multiplied elementwise).
      precision: optional `lax.Precision` for the contraction (JAX extension).
      preferred_element_type: optional accumulation / result dtype (JAX extension).
      out_sharding: the result's layout, as `lax.dot_general`'s (JAX extension).
    Returns:
      The contracted array.
    Differs from NumPy: no `out=`; adds `precision=` and `preferred_element_type=`.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.dot(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0]))
      Array(11., dtype=float32)
    """
    if preferred_element_type is None:
        _check_integer_width("dot", a, b)
    a, b, av, bv = _prep(a, b, preferred_element_type)
    if (av.ndim == 0 or bv.ndim == 0) and out_sharding is None:
        out = multiply(a, b)
        return out if preferred_element_type is None else \
            lax.convert_element_type(out, preferred_element_type)
    if av.ndim == 0 or bv.ndim == 0:    # JAX's outer dot_general, laid out as asked
        return lax.dot_general(a, b, (((), ()), ((), ())), precision,
                               _pet(preferred_element_type, a), out_sharding=out_sharding)
    if bv.ndim == 1:
        contract = ((av.ndim - 1,), (0,))
    else:
        contract = ((av.ndim - 1,), (bv.ndim - 2,))
    if av.shape[contract[0][0]] != bv.shape[contract[1][0]]:
        raise ShapeError(f"dot: shapes {av.shape} and {bv.shape} are not aligned: "
                         f"{av.shape[contract[0][0]]} (dim {contract[0][0]}) != "
                         f"{bv.shape[contract[1][0]]} (dim {contract[1][0]})",
                         hint="the last axis of the first operand must match the "
                              "second-to-last axis of the second (or its only axis)")
    return lax.dot_general(a, b, (contract, ((), ())), precision, _pet(preferred_element_type, a),
                           out_sharding=out_sharding)


def matmul(a, b, *, precision=None, preferred_element_type=None,
           out_sharding=None) -> Array:
    """Matrix product `a @ b`, with leading (batch) axes broadcast.

    One dot_general, as JAX's `_matmul` does: a batch axis present in only one
    operand (missing or of size 1 in the other) is a free axis of that operand's
    dot_general instead of a broadcast of the other, so a 2-D weight meets a
    batched activation as one plain GEMM and its gradient is one dot contracting
    the batch axes (no broadcast weight, no batch reduce).

    Args:
      a, b: arrays of rank >= 1 (1-D operands are treated as vectors).
      precision: optional `lax.Precision` for the contraction (JAX extension).
      preferred_element_type: optional accumulation / result dtype (JAX extension).
      out_sharding: the layout of the dot_general's result (batch, `a`'s free and
        `b`'s free dimensions; the result's own for 2-D operands), as JAX's.
    Returns:
      The matrix product.
    Differs from NumPy: no `out=`; adds `precision=` and `preferred_element_type=`.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.matmul(jnp.array([[1.0, 2.0], [3.0, 4.0]]), jnp.array([1.0, 1.0]))
      Array([3., 7.], dtype=float32)
    """
    a, b, av, bv = _prep(a, b, preferred_element_type)
    if av.ndim == 0 or bv.ndim == 0:
        i = 0 if av.ndim == 0 else 1
        raise ShapeValueError(f"matmul input operand {i} must have ndim at least 1, but it "
                              "has ndim 0", hint="use * to multiply by a scalar")
    if bv.ndim <= 2:  # no batch axes in b: exactly jnp.dot (one dot_general)
        k = bv.shape[0]
        if av.shape[-1] != k:
            raise ShapeError(f"matmul: shapes {av.shape} and {bv.shape} are not aligned: "
                             f"{av.shape[-1]} != {k}")
        return dot(a, b, precision=precision, preferred_element_type=preferred_element_type,
                   out_sharding=out_sharding)
    a2 = a if av.ndim > 1 else lax.reshape(a, (1,) + av.shape)
    b2 = b if bv.ndim > 1 else lax.reshape(b, bv.shape + (1,))
    a2v, b2v = core.get_aval(a2), core.get_aval(b2)
    if a2v.shape[-1] != b2v.shape[-2]:
        raise ShapeError(f"matmul: shapes {av.shape} and {bv.shape} are not aligned: "
                         f"{a2v.shape[-1]} != {b2v.shape[-2]}")
    batch_a, batch_b = a2v.shape[:-2], b2v.shape[:-2]
    batch = broadcast_shapes(batch_a, batch_b)
    nb = len(batch)
    off_a, off_b = nb - len(batch_a), nb - len(batch_b)
    squeeze_a, squeeze_b, shared, free_a, free_b = [], [], [], [], []
    for i in range(nb):
        da = batch_a[i - off_a] if i >= off_a else None
        db = batch_b[i - off_b] if i >= off_b else None
        if da not in (None, 1) and db not in (None, 1):
            shared.append(i)
            continue
        if da == 1:
            squeeze_a.append(i - off_a)
        if db == 1:
            squeeze_b.append(i - off_b)
        if da not in (None, 1):
            free_a.append(i)
        elif db not in (None, 1):
            free_b.append(i)
    if squeeze_a:
        a2 = lax.squeeze(a2, tuple(squeeze_a))
    if squeeze_b:
        b2 = lax.squeeze(b2, tuple(squeeze_b))
    # a2 is [kept batch axes in order (shared + free_a)] + [M, K]; b2 likewise + [K, N]
    kept_a = sorted(shared + free_a)
    kept_b = sorted(shared + free_b)
    bd_a = tuple(kept_a.index(i) for i in shared)
    bd_b = tuple(kept_b.index(i) for i in shared)
    na, nb2 = len(kept_a) + 2, len(kept_b) + 2
    out = lax.dot_general(a2, b2, (((na - 1,), (nb2 - 2,)), (bd_a, bd_b)),
                          precision, _pet(preferred_element_type, a2), out_sharding=out_sharding)
    # out is [shared] + [free_a] + [M] + [free_b] + [N]: put the batch axes in order
    order = shared + free_a + ["M"] + free_b + ["N"]
    want = sorted(shared + free_a + free_b) + ["M", "N"]
    perm = tuple(order.index(x) for x in want)
    if perm != tuple(range(len(perm))):
        out = lax.transpose(out, perm)
    final = batch + (a2v.shape[-2], b2v.shape[-1])
    if core.get_aval(out).shape != final:
        out = lax.reshape(out, final)
    if av.ndim == 1:
        out = lax.squeeze(out, (nb,))
    if bv.ndim == 1:
        out = lax.squeeze(out, (core.get_aval(out).ndim - 1,))
    return out


_matmul_jitted = _library_jit(matmul, static_argnames=("precision", "preferred_element_type"))


def _matmul_eager(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    # one executable per signature eagerly, as JAX's jitted matmul; with `out_sharding`
    # op by op: an eager product of host values keeps to one device, as JAX's
    if out_sharding is None:
        return _matmul_jitted(a, b, precision=precision,
                              preferred_element_type=preferred_element_type)
    return _matmul_op_by_op(a, b, precision=precision,
                            preferred_element_type=preferred_element_type,
                            out_sharding=out_sharding)


_matmul_op_by_op, matmul = matmul, functools.wraps(matmul)(_matmul_eager)


@_library_jit(static_argnames=("precision", "preferred_element_type"))
def vdot(a, b, *, precision=None, preferred_element_type=None):
    """Dot product of two flattened arrays, conjugating the first.

    Args:
      a, b: arrays with the same number of elements.
      precision: optional `lax.Precision` for the contraction (JAX extension).
    Returns:
      A 0-d array.
    Differs from NumPy: adds `precision=`.
    """
    return dot(conjugate(ravel(a)), ravel(b), precision=precision,
               preferred_element_type=preferred_element_type)


def inner(a, b, *, precision=None, preferred_element_type=None):
    """Inner product: sums over the last axis of both arrays.

    Args:
      a, b: arrays whose last axes match (0-d operands multiply).
      precision: optional `lax.Precision` for the contraction (JAX extension).
    Returns:
      Array of shape `a.shape[:-1] + b.shape[:-1]`.
    Differs from NumPy: adds `precision=`.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.inner(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0]))
      Array(11., dtype=float32)
    """
    a, b, av, bv = _prep(a, b)
    if av.ndim == 0 or bv.ndim == 0:
        if preferred_element_type is not None:
            a, b = (lax.convert_element_type(v, preferred_element_type) for v in (a, b))
        return multiply(a, b)
    return lax.dot_general(a, b, (((av.ndim - 1,), (bv.ndim - 1,)), ((), ())), precision,
                           preferred_element_type=_pet(preferred_element_type, a))


@_library_jit
def outer(a, b, out=None):
    """Outer product of two flattened arrays.

    Args:
      a, b: arrays (flattened to 1-D).
      out: only None (JAX's NotImplementedError otherwise).
    Returns:
      Array of shape `(a.size, b.size)` with entries `a[i] * b[j]`.
    Differs from NumPy: no `out=`.
    """
    _no_out(out, "jnp.outer")
    a, b = ravel(asarray_operand(a)), ravel(asarray_operand(b))
    a, b = promote_dtypes(a, b)
    # a[:, None] * b[None, :], JAX's form: its derivative's sums round as JAX's
    return multiply(lax.expand_dims(a, (1,)), lax.expand_dims(b, (0,)))


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None,
              out_sharding=None):
    """Sum products over chosen axes of two arrays.

    Args:
      a, b: arrays. axes: an int N (last N axes of `a` with first N of `b`) or
        a pair of axis sequences. precision: optional `lax.Precision` for the contraction (JAX extension).
      preferred_element_type: optional accumulation / result dtype (JAX extension).
      out_sharding: the result's layout, as `lax.dot_general`'s (JAX extension).
    Returns:
      The contraction, free axes of `a` followed by free axes of `b`.
    Differs from NumPy: adds `precision=`.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.tensordot(jnp.ones((2, 3)), jnp.ones((3, 4)), axes=1).shape
      (2, 4)
    """
    _check_integer_width("tensordot", a, b)
    a, b, av, bv = _prep(a, b)
    if isinstance(axes, (int, np.integer)):
        if axes > min(av.ndim, bv.ndim):
            raise ShapeError(f"tensordot: axes={axes} contracts more axes than the inputs "
                             f"have (shapes {av.shape} and {bv.shape})",
                             hint=f"pass axes <= {min(av.ndim, bv.ndim)}, or a pair of axis "
                                  f"lists")
        ax_a = tuple(range(av.ndim - axes, av.ndim))
        ax_b = tuple(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = (ax_a,) if isinstance(ax_a, (int, np.integer)) else tuple(ax_a)
        ax_b = (ax_b,) if isinstance(ax_b, (int, np.integer)) else tuple(ax_b)
        # repeated axes: lax.dot_general's TypeError, as JAX
        ax_a = canonicalize_axes(ax_a, av.ndim, "tensordot", unique=False)
        ax_b = canonicalize_axes(ax_b, bv.ndim, "tensordot", unique=False)
    return lax.dot_general(a, b, ((ax_a, ax_b), ((), ())), precision,
                           _pet(preferred_element_type, a), out_sharding=out_sharding)


@_library_jit
def kron(a, b):
    """Kronecker product: blocks of `b` scaled by each entry of `a`.

    Args:
      a, b: arrays (the lower-rank one gets leading unit axes).
    Returns:
      Array whose shape is the elementwise product of the two shapes.
    Differs from NumPy: results follow JAX's dtype promotion rules.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.kron(jnp.array([1, 2]), jnp.array([1, 10]))
      Array([ 1, 10,  2, 20], dtype=int32)
    """
    a, b, av, bv = _prep(a, b)
    nd = max(av.ndim, bv.ndim)
    a = reshape(a, (1,) * (nd - av.ndim) + av.shape)
    b = reshape(b, (1,) * (nd - bv.ndim) + bv.shape)
    sa, sb = core.get_aval(a).shape, core.get_aval(b).shape
    a_ = reshape(a, tuple(x for d in sa for x in (d, 1)))
    b_ = reshape(b, tuple(x for d in sb for x in (1, d)))
    return reshape(multiply(a_, b_), tuple(x * y for x, y in zip(sa, sb)))


def _check_spec(in_specs, out, shapes):
    """Reject an einsum spec that does not fit its operands, with NumPy's / JAX's
    ValueErrors: the operand count, each subscript's rank, one size per label, output
    labels that appear in the inputs and only once."""
    if len(in_specs) != len(shapes):
        raise ArgumentValueError(f"einsum: the number of subscripts, {len(in_specs)}, must "
                                 f"equal the number of operands, {len(shapes)}",
                                 hint="give one comma-separated subscript per operand")
    sizes = {}
    for k, (spec, shape) in enumerate(zip(in_specs, shapes)):
        labels = spec.replace("...", "")
        if ("..." in spec and len(labels) > len(shape)) or ("..." not in spec
                                                            and len(labels) != len(shape)):
            raise ShapeValueError(f"einsum: subscript {spec!r} does not have the right number "
                                  f"of indices for operand {k} of shape {tuple(shape)}")
        head, _, tail = spec.partition("...")  # labels before an ellipsis, and after
        dims = tuple(shape[:len(head)]) + tuple(shape[len(shape) - len(tail):] if tail else ())
        for c, d in zip(head + tail, dims):
            if sizes.setdefault(c, d) != d and 1 not in (d, sizes[c]):
                raise ShapeValueError(f"einsum: size of label {c!r} for operand {k} ({d}) does "
                                      f"not match previous terms ({sizes[c]})")
    labels = out.replace("...", "")
    for c in labels:
        if labels.count(c) > 1:
            raise ArgumentValueError(f"einsum: output label {c!r} appears more than once in "
                                     f"the output")
        if c not in sizes:
            raise ArgumentValueError(f"einsum: output label {c!r} does not appear in the input")


def _einsum_sum(x, axes, preferred):
    """JAX's einsum sum of `axes`: in x's dtype (preferred_element_type's where it
    promotes), bool by `or`; no integer widening as jnp.sum's."""
    dt = core.get_aval(x).dtype
    if preferred is not None and dtypes.result_type(dt, preferred) != dt:
        x, dt = lax.convert_element_type(x, preferred), dtypes.canonicalize(dtypes.dtype(preferred))
    return lax.reduce_or(x, axes) if dt == np.bool_ else lax.reduce_sum(x, axes)


def _from_sublists(args):
    """einsum(op0, sublist0, op1, sublist1, ..., [sublist_out]) as (subscripts,
    operands): the labels (any sortable values; `...` an ellipsis) become letters by
    their rank among all labels, as opt_einsum's reading under JAX's einsum."""
    out = args[-1] if len(args) % 2 else None   # (none given: the implicit output)
    args = args[:-1] if len(args) % 2 else args
    lists = [list(s) for s in args[1::2]] + ([] if out is None else [list(out)])
    try:
        labels = sorted({v for sub in lists for v in sub if v is not Ellipsis})
    except TypeError:
        raise ArgumentValueError("einsum: the sublists must hold Ellipsis or hashable, "
                                "comparable labels (e.g. ints)") from None
    if len(labels) > len(string.ascii_letters):
        raise ArgumentValueError(f"einsum: {len(labels)} distinct labels; astjax's "
                                 f"interleaved form takes at most 52")
    letter = {v: string.ascii_letters[i] for i, v in enumerate(labels)}
    specs = ["".join("..." if v is Ellipsis else letter[v] for v in sub) for sub in lists]
    n = len(args) // 2
    spec = ",".join(specs[:n]) + ("" if out is None else "->" + specs[n])
    return spec, list(args[0::2])


def einsum(subscripts, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None, out_sharding=None, _dot_general=None) -> Array:
    """Einstein-summation contraction of operands according to `subscripts`.

    Pairwise contractions of an explicit or implicit einsum spec, in JAX's order.

    Args:
      subscripts: spec such as 'ij,jk->ik' (implicit output if no '->').
      operands: the arrays. optimize: the contraction order, as `einsum_path`'s
        (default 'auto'; False: always the first two operands, the result last).
      out: only None (JAX's NotImplementedError otherwise).
      precision: optional `lax.Precision` for the contraction (JAX extension).
      preferred_element_type: optional accumulation / result dtype (JAX extension).
      out_sharding: the result's layout (a NamedSharding, or a PartitionSpec under
        `set_mesh`): given to the last contraction (permuted to its dimension order),
        else the result is resharded to it; over three or more operands, as JAX's
        Auto-axes mode, the inner contractions are not layout-checked (JAX extension).
      _dot_general: the function each pairwise contraction calls in place of
        `lax.dot_general`, with its signature (JAX's private hook; flax passes one).
    Returns:
      The contracted array.
    Differs from NumPy: no `out=`; adds `precision=` and `preferred_element_type=`.

    Example:
      >>> import astjax.numpy as jnp
      >>> jnp.einsum('ij,j->i', jnp.array([[1.0, 2.0], [3.0, 4.0]]), jnp.array([1.0, 1.0]))
      Array([3., 7.], dtype=float32)
    """
    if not isinstance(subscripts, str) and operands and not isinstance(operands[0], str):
        subscripts, operands = _from_sublists((subscripts, *operands))
    operands = promote_dtypes(*[asarray_operand(jax_array_protocol(o)) for o in operands])
    _no_out(out, "jnp.einsum")
    layout = None if out_sharding is None else _out_layout(out_sharding, "einsum")
    if layout is not None and len(operands) > 2:
        # JAX contracts several operands over Auto axes, then lays the result out:
        # no layout check on the inner contractions (here: replicated operands)
        whole = type(layout)(layout.mesh, type(layout.spec)())
        operands = [_reshard(o, whole) for o in operands]
    if not isinstance(subscripts, str):
        raise ArgumentTypeError(f"einsum: subscripts must be a string, got "
                                f"{type(subscripts).__name__}",
                                hint="pass a spec such as 'ij,jk->ik' first")
    subscripts = subscripts.replace(" ", "")
    if subscripts.count("->") > 1:
        raise ArgumentValueError(f"einsum: subscripts {subscripts!r} can only contain one '->'")
    if "->" in subscripts:
        ins, out = subscripts.split("->")
    else:
        ins = subscripts
        counts = {}
        for c in ins.replace(",", "").replace(".", ""):
            counts[c] = counts.get(c, 0) + 1
        out = ("..." if "..." in ins else "") + "".join(sorted(c for c, n in counts.items() if n == 1))
    in_specs = ins.split(",")
    shapes = [core.get_aval(o).shape for o in operands]
    _check_spec(in_specs, out, shapes)
    # expand ellipses into fresh letters
    free_letters = [c for c in string.ascii_letters if c not in subscripts]
    n_ells = [core.get_aval(op).ndim - (len(spec) - 3) if "..." in spec else 0
              for spec, op in zip(in_specs, operands)]
    max_ell = max(n_ells, default=0)
    specs = []
    for spec, n_ell in zip(in_specs, n_ells):
        if "..." in spec:  # ellipsis dims align on the right, as in NumPy
            spec = spec.replace("...", "".join(free_letters[max_ell - n_ell:max_ell]))
        specs.append(spec)
    if "..." in out:
        out = out.replace("...", "".join(free_letters[:max_ell]))
    ops = list(operands)
    # a size-1 axis whose label is longer elsewhere broadcasts (NumPy, JAX): drop it here
    size = {}
    for spec, op in zip(specs, ops):
        for c, d in zip(spec, core.get_aval(op).shape):
            size[c] = size.get(c, 1) if d == 1 else d   # (symbolic sizes: no comparison)
    for k, (spec, op) in enumerate(zip(specs, ops)):
        shp = core.get_aval(op).shape
        drop = [i for i, c in enumerate(spec) if shp[i] == 1 and size[c] != 1 and spec.count(c) == 1]
        if drop:
            ops[k] = reshape(op, tuple(d for i, d in enumerate(shp) if i not in drop))
            specs[k] = "".join(c for i, c in enumerate(spec) if i not in drop)
    # reduce repeated letters within one operand (traces) and letters appearing nowhere else
    for k, (spec, op) in enumerate(zip(specs, ops)):
        if len(set(spec)) != len(spec):
            while len(set(spec)) != len(spec):
                c = next(ch for ch in spec if spec.count(ch) > 1)
                i = spec.index(c)
                j = spec.index(c, i + 1)
                op = diagonal(op, 0, i, j)
                spec = spec[:i] + spec[i + 1:j] + spec[j + 1:] + c
            ops[k], specs[k] = op, spec
    for k in range(len(ops)):
        others = set(out).union(*[set(s) for j, s in enumerate(specs) if j != k])
        drop = [i for i, c in enumerate(specs[k]) if c not in others]
        if drop:
            ops[k] = _einsum_sum(ops[k], tuple(drop), preferred_element_type)
            specs[k] = "".join(c for i, c in enumerate(specs[k]) if i not in drop)
    items = [(op, spec, False) for op, spec in zip(ops, specs)]
    steps = _pairwise_order(subscripts, shapes, optimize)
    for idx, step in enumerate(steps, 1):   # JAX's order: the pair, its result last
        if len(step) == 1:   # (its lone indices are summed above): moved last, as JAX
            items.append(items.pop(step[0])[:2] + (True,))
            continue
        i, j = step
        second, first = items.pop(j), items.pop(i)
        if second[2]:   # (an intermediate result is the left operand of dot_general)
            first, second = second, first
        (cur, cur_spec, _), (op, spec, _) = first, second
        later = set(out)
        for _, s, _ in items:
            later |= set(s)
        batch = [c for c in cur_spec if c in spec and c in later]
        contract = [c for c in cur_spec if c in spec and c not in later]
        dims = (((tuple(cur_spec.index(c) for c in contract), tuple(spec.index(c) for c in contract)),
                 (tuple(cur_spec.index(c) for c in batch), tuple(spec.index(c) for c in batch))))
        new_spec = "".join(batch) + "".join(c for c in cur_spec if c not in batch and c not in contract) + \
            "".join(c for c in spec if c not in batch and c not in contract)
        laid = None
        if layout is not None and idx == len(steps) and set(new_spec) == set(out):
            laid = _permuted(layout, out, new_spec)
            layout = None
        if _dot_general is None:
            res = lax.dot_general(cur, op, dims, precision, _pet(preferred_element_type, cur),
                                  out_sharding=laid)
        else:
            # (JAX gives the hook the operands' result type when none is asked for)
            res = _dot_general(cur, op, dims, precision,
                               preferred_element_type=np.dtype(
                                   core.get_aval(operands[0]).dtype
                                   if preferred_element_type is None else preferred_element_type),
                               **({} if laid is None else {"out_sharding": laid}))
        items.append((res, new_spec, True))
    (cur, cur_spec, _), = items
    drop = [i for i, c in enumerate(cur_spec) if c not in out]
    if drop:
        cur = _einsum_sum(cur, tuple(drop), preferred_element_type)
        cur_spec = "".join(c for i, c in enumerate(cur_spec) if i not in drop)
    if cur_spec != out:
        cur = transpose(cur, tuple(cur_spec.index(c) for c in out))
    if preferred_element_type is not None:   # (also with no contraction, as JAX)
        cur = lax.convert_element_type(cur, preferred_element_type)
    if layout is not None:      # no final contraction to lay out: reshard the result
        cur = _reshard(cur, layout)
    return cur


def _pairwise_order(subscripts, shapes, optimize):
    """The pairs (i < j) of positions JAX's einsum contracts, in order, each result
    appended last: the path `einsum_path` finds for `optimize` (JAX's False: always
    the first two; 'dp' moves an operand alone). Left to right for symbolic shapes or
    a path with more than pairs."""
    n = len(shapes)
    if any(not isinstance(d, (int, np.integer)) for s in shapes for d in s):
        return _left_to_right(n)
    if optimize is False:
        return [(0, 1)] * (n - 1)
    if n <= 2:
        return _left_to_right(n)
    opt = "optimal" if optimize is True else optimize
    path, _ = contraction_path(subscripts, shapes, opt)
    if any(len(step) > 2 for step in path):
        return _left_to_right(n)
    return [tuple(sorted(step)) for step in path]


def _left_to_right(n):
    """((a b) c) ...: the running result (last) with the first remaining operand (no
    pair for one operand)."""
    if n < 2:
        return []
    return [(0, 1)] + [(0, n - k - 1) for k in range(1, n - 1)]


def _permuted(layout, out, labels):
    """`layout` (of the dimensions `out`) for a result whose dimensions are `labels`."""
    spec = layout.spec._normalized(len(out))
    return type(layout)(layout.mesh, type(layout.spec)(*[spec[out.index(c)] for c in labels]))
