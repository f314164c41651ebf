"""JAX's typed cotangents for a reverse mode taken inside a `shard_map(...,
check_vma=True)` body (the varying manual axes: `primitives/vma.py`).

JAX types every cotangent by its varying manual axes: `psum` transposes to a `pvary`,
the implicit `pvary` of an invariant operand to a `psum`. astjax's transposes are the
adjoints of the per-device program (`psum`'s is a `psum`, `pvary`'s the identity): a
value invariant over manual axes has per-device shares of JAX's cotangent, which sum
to it. The two differ only at the boundary of the differentiated function, which is
corrected there:
- `reverse_typed` / `typed_backward`: a `grad` / `vjp` / `jacrev` /
  `linear_transpose` (an invariant output counts once, an invariant input's cotangent
  is summed over its axes); `transposing` stages the backward pass with its
  residuals' and cotangents' axes known (a gradient taken inside a custom `bwd`);
  `check_cotangents`: JAX's error for a `vjp` cotangent typed otherwise;
  `check_jvp_tangents`: JAX's error for a `custom_jvp` rule's tangent output typed
  otherwise than its primal output;
- `TypedCustomBwd`: a `custom_vjp`'s `bwd` rule, which gets and gives JAX's
  cotangents (the same correction, inverted).
"""
from __future__ import annotations

import contextlib

import numpy as np

from .. import core
from ..core import bind
from ..errors import (ArgumentTypeError, ArgumentValueError, NotImplementedInAstjaxError,
                      caller_location)
from .collectives import psum_p
from .collectives_typed import pvary_p
from .elementwise import div_p
from .vma import (_bodies, _inputs, _vma_str, staged_vma, staged_vmas,  # noqa: F401
                  staging_inputs, vma_env)   # (staging_inputs: for ad_api)

__all__ = ["TypedClosedJaxpr", "reverse_typed", "typed_backward", "TypedCustomBwd",
           "transposing", "check_cotangents", "check_jvp_tangents", "staging_inputs"]


class TypedClosedJaxpr(core.ClosedJaxpr):
    """A function differentiated in reverse mode inside a `check_vma` shard_map body,
    with the varying axes JAX types its cotangents by: the body's manual axes
    (`manual`, in mesh order), per input leaf its varying axes (`in_vmas`) and those it
    is invariant over (`sum_axes`), per output leaf its varying axes (`out_vmas`) and
    the number of devices along the axes it is invariant over (`out_counts`)."""
    __slots__ = ("manual", "in_vmas", "sum_axes", "out_vmas", "out_counts")


def reverse_typed(closed, leaves, what="grad"):
    """`closed` (a function of `leaves` about to be differentiated in reverse mode) as
    a `TypedClosedJaxpr` when it is staged inside a `check_vma` shard_map body and an
    input or output is invariant over a manual axis; else `closed` itself.

    astjax's transposes are the adjoints of the per-device program (`psum`'s is a
    `psum`, `pvary`'s the identity): an invariant value counts once per device. JAX's
    count it once: its cotangent of an invariant output is not summed again (`psum`
    transposes to `pvary`) and an invariant input's is summed over the axes (the
    transpose of the `pvary` it inserts where the input meets a varying value). The
    two differ only at the function's boundary, which `typed_backward` corrects. Where
    the varying axes of an input are not known (a function staged without
    `staging_inputs`, e.g. a custom_jvp's) astjax cannot tell which: a located
    NotImplementedError."""
    if not _bodies() or _bodies()[-1][3] is None:   # (no body, or check_vma=False)
        return closed
    ins = staged_vmas(leaves)
    outs = _closed_vmas(closed, ins)
    if any(v is None for v in ins + outs):          # (axes not known: see above)
        raise NotImplementedInAstjaxError(
            f"{what} inside a function staged inside a shard_map body with check_vma (a "
            "custom_jvp / custom_vjp function): the varying manual axes of its arguments "
            "are not known while it is staged, and JAX's cotangents depend on them (an "
            "invariant output counts once, an invariant input's cotangent is summed over "
            "the axes)",
            hint="take the gradient outside that function, or pass check_vma=False to "
                 "shard_map (astjax then differentiates per device, as JAX does)")
    jaxpr = closed.jaxpr
    _, mesh, auto = _bodies()[-1][:3]
    manual = [a for a in mesh.axis_names if a not in auto]
    sum_axes = [tuple(a for a in manual if a not in v) for v in ins]
    counts = [int(np.prod([mesh.shape[a] for a in manual if a not in o])) for o in outs]
    typed = TypedClosedJaxpr(jaxpr, closed.consts)
    typed.manual, typed.in_vmas, typed.sum_axes = manual, ins, sum_axes
    typed.out_vmas, typed.out_counts = outs, counts
    return typed


def typed_backward(closed, known, transpose, nres, in_mask, ct_outs):
    """The backward pass `bwd = transpose()` (residuals from `known`, cotangents of
    outputs `ct_outs` -> those of the differentiable inputs in `in_mask`; staged with
    their axes known, `transposing`) of `closed` with JAX's typed cotangents
    (`reverse_typed`): an invariant output's cotangent divided by its device
    count on the way in; on the way out an invariant input's summed over its axes, and
    each typed as its input (a `pvary` where astjax's transposes left it invariant,
    e.g. after a `psum`, as JAX's transpose of `psum` is a `pvary`)."""
    with transposing(closed, known, nres, ct_outs):
        bwd = transpose()
    if not isinstance(closed, TypedClosedJaxpr) or (
            not any(closed.sum_axes) and all(n == 1 for n in closed.out_counts)):
        return bwd      # (every input and output varies over every manual axis)
    ins = [i for i, (m, v) in enumerate(zip(in_mask, closed.jaxpr.invars))
           if m and core.differentiable(v.aval)]
    assert len(ins) == len(bwd.jaxpr.outvars), (ins, bwd.jaxpr.outvars)
    counts = [closed.out_counts[i] for i in ct_outs]
    sums = [closed.sum_axes[i] for i in ins]
    res = _closed_vmas(known, closed.in_vmas)[len(known.jaxpr.outvars) - nres:]
    # (a cotangent counted invariant: grad's and jacrev's are constants; a vjp's may vary
    # more, and a pvary over an axis a value varies over already is the identity)
    got = [set(v) - set(a) if v is not None else set()
           for v, a in zip(_closed_vmas(bwd, res + [frozenset()] * len(ct_outs)), sums)]
    more = [tuple(a for a in closed.manual if a in closed.in_vmas[i] and a not in g)
            for i, g in zip(ins, got)]

    def fn(*args):
        cts = [bind(div_p, c, np.asarray(n, core.get_aval(c).dtype)[()])
               if n != 1 and isinstance(c, core.Tracer) else c
               for c, n in zip(args[nres:], counts)]
        outs = core.inline_jaxpr(bwd.jaxpr, bwd.consts, list(args[:nres]) + cts)
        outs = [bind(psum_p, o, axes=a, axis_index_groups=None)
                if a and isinstance(o, core.Tracer) else o for o, a in zip(outs, sums)]
        return [bind(pvary_p, o, axes=m) if m and isinstance(o, core.Tracer) else o
                for o, m in zip(outs, more)]
    return core.stage(fn, bwd.in_avals, [v.hint for v in bwd.jaxpr.invars])


class TypedCustomBwd:
    """A `custom_vjp`'s `bwd` (`bwd(res, cts) -> cts of its operand leaves`) called
    with JAX's typed cotangents when the call is staged inside a `check_vma` body.

    astjax's transposes keep a value invariant over manual axes as per-device shares
    whose sum is JAX's cotangent (`reverse_typed`); the user's rule is written for
    JAX's. So the cotangent of an output invariant over axes is summed over them on the
    way in (a constant one: times their device count), and the rule's cotangent of an
    operand invariant over axes split evenly over their devices on the way out: the
    same boundary correction as where a reverse mode starts, inverted. `outputs(outs)`
    records the call's results' axes once it is bound. Where the operands' axes are not
    known (a call staged inside a function staged without them) the rule refuses,
    located, as `reverse_typed` does."""
    __slots__ = ("bwd", "typing", "loc", "paths")

    def __init__(self, bwd, leaves, paths=None):
        self.bwd, self.typing, self.loc = bwd, None, caller_location()
        self.paths = paths      # (each operand leaf's key path in the args, for errors)
        if _bodies() and _bodies()[-1][3] is not None:
            _, mesh, auto = _bodies()[-1][:3]
            self.typing = (mesh, [a for a in mesh.axis_names if a not in auto],
                           staged_vmas(leaves), None)

    def outputs(self, outs):
        """Record the varying axes of the bound call's results."""
        if self.typing is not None:
            self.typing = self.typing[:3] + (staged_vmas(outs),)

    def __call__(self, res, cts):
        if self.typing is None:
            return self.bwd(res, cts)
        mesh, manual, ins, outs = self.typing
        if any(v is None for v in ins + (outs or [])):
            raise NotImplementedInAstjaxError(
                "a custom_vjp function called inside a function staged inside a shard_map "
                "body with check_vma (e.g. a custom rule): the varying manual axes of its "
                "operands are not known, and the cotangents its bwd rule gets and gives "
                "are typed by them", loc=self.loc,
                hint="call it directly in the shard_map body, or pass check_vma=False")

        def count(vma):
            axes = tuple(a for a in manual if a not in vma)
            return axes, int(np.prod([mesh.shape[a] for a in axes]))
        typed = []
        for c, vma in zip(cts, outs):
            axes, n = count(vma)
            if n != 1 and isinstance(c, core.Tracer):
                c = bind(psum_p, c, axes=axes, axis_index_groups=None)
            elif n != 1 and isinstance(c, np.ndarray):  # (a constant share: on every device)
                c = c * np.asarray(n, c.dtype)
            typed.append(c)
        got = self.bwd(res, typed)
        self._check(got, ins)
        out = []
        for g, vma in zip(got, ins):
            n = count(vma)[1]
            if n != 1 and isinstance(g, core.Tracer):
                g = bind(div_p, g, np.asarray(n, core.get_aval(g).dtype)[()])
            elif n != 1 and isinstance(g, np.ndarray):
                g = g / np.asarray(n, g.dtype)
            out.append(g)
        return out

    def _check(self, got, ins):
        """JAX's ValueError for a cotangent typed otherwise than its operand (the
        varying axes known only while the body is staged)."""
        if not _bodies() or _bodies()[-1][3] is None:
            return
        arrays = [k for k, g in enumerate(got) if isinstance(g, (core.Tracer, np.ndarray))]
        for k, vma in zip(arrays, staged_vmas([got[k] for k in arrays])):
            if vma is None or set(vma) == set(ins[k]):
                continue
            aval = core.get_aval(got[k])
            path = self.paths[k] if self.paths else f"[{k}]"
            raise ArgumentValueError(
                "Custom VJP bwd rule must produce an output with the same type as the args "
                f"tuple of the primal function, but at output{path} the bwd rule produced an "
                f"output of type {_vma_str(aval, vma)} corresponding to an input of type "
                f"{_vma_str(aval, ins[k])}, so the manual axis types do not match",
                loc=self.loc, hint="make the cotangent vary as its operand (lax.pcast(..., "
                                   "to='varying')), or reduce it (lax.psum)")


@contextlib.contextmanager
def transposing(closed, known, nres, ct_outs):
    """While the backward pass of `closed` (a `reverse_typed` function: residuals from
    `known`, then the cotangents of its outputs `ct_outs`) is staged: its arguments
    vary as JAX types them (a gradient taken inside a `custom_vjp`'s bwd rule)."""
    if not isinstance(closed, TypedClosedJaxpr):
        yield
        return
    res = _closed_vmas(known, closed.in_vmas)[len(known.jaxpr.outvars) - nres:]
    _inputs().append((len(core._state.builders),
                      list(res) + [closed.out_vmas[i] for i in ct_outs]))
    try:
        yield
    finally:
        _inputs().pop()


def _closed_vmas(closed, ins):
    """The varying axes of a closed jaxpr's outputs inside the innermost body, given
    its inputs' (its consts': those of the staged values they are); None: unknown."""
    consts = staged_vmas(closed.consts)
    jaxpr = closed.jaxpr
    env = vma_env(jaxpr.constvars + jaxpr.invars, jaxpr.eqns, consts + list(ins))
    return [(None if env.get(v, set()) is None else frozenset(env.get(v, set())))
            if isinstance(v, core.Var) else frozenset() for v in jaxpr.outvars]


def check_cotangents(closed, cts):
    """JAX's ValueError for a `vjp` cotangent that varies over manual axes its primal
    output does not (`cts`: one per output leaf). A less varying one is accepted:
    astjax infers less than JAX types (`jnp.ones_like(y)` is invariant here, typed as
    `y` in JAX), and the value is the same on those devices."""
    if not isinstance(closed, TypedClosedJaxpr):
        return
    for c, vma, v in zip(cts, closed.out_vmas, closed.jaxpr.outvars):
        got = staged_vma(c) if isinstance(c, core.Tracer) else frozenset()
        if got is not None and got - vma:
            want = _vma_str(v.aval, vma)
            raise ArgumentValueError(
                "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
                f"{_vma_str(core.get_aval(c), got)}, but expected {want} because the "
                f"corresponding output of the differentiated function had JAX type {want}",
                hint="make the cotangent vary over the output's axes (lax.psum / "
                     "lax.pcast)", loc=caller_location())


def check_jvp_tangents(primals, tangents):
    """JAX's TypeError for a `custom_jvp` rule, staged inside a `check_vma` body, whose
    tangent output varies over manual axes its primal output does not (the rule's
    outputs `primals` and `tangents`, leaf by leaf). A less varying tangent is
    accepted: astjax infers less than JAX types (`check_cotangents`)."""
    if not _bodies() or _bodies()[-1][3] is None:
        return
    pairs = [(p, t) for p, t in zip(primals, tangents)
             if isinstance(t, core.Tracer) and core.differentiable(core.get_aval(p))]
    if not pairs:
        return
    mesh = _bodies()[-1][1]
    got = staged_vmas([p for p, _ in pairs] + [t for _, t in pairs])
    for (p, t), vp, vt in zip(pairs, got[:len(pairs)], got[len(pairs):]):
        if vp is None or vt is None or not vt - vp:
            continue
        want = _vma_str(core.get_aval(p), vp, mesh)
        raise ArgumentTypeError(
            "Custom JVP rule must produce primal and tangent outputs with corresponding "
            f"shapes and dtypes. Expected {want} (tangent type of {want}) but got "
            f"{_vma_str(core.get_aval(t), vt, mesh)}.", loc=caller_location(),
            hint="make the primal output vary as the tangent (lax.pcast(..., "
                 "to='varying')), or reduce the tangent (lax.psum)")
