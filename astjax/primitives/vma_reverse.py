"""JAX's typed reverse mode inside a `shard_map(..., check_vma=True)` body (the varying
manual axes: `primitives/vma.py`).

JAX types every cotangent by its primal's varying manual axes: an invariant value's
cotangent holds the whole value, `pvary` transposes to `psum_invariant` and
`psum_invariant` to `pvary`, and grad's seed of an output varying over axes is
`pvary(1.0)`. astjax's per-device transposes (the adjoints of the per-device program:
`pvary`'s the identity, a sum's a sum) stay for everything else -- a body transposed
from outside (`shard_map.py`'s transpose splits and sums at its boundary),
`check_vma=False`, outside shard_map. A function differentiated inside a `check_vma`
body is transposed the typed way:
- `reverse_typed` marks it (`TypedClosedJaxpr`: its inputs' and outputs' axes);
  `typed_backward` stages its backward pass with JAX's typed transposes
  (`transposing`: `collectives_typed.typed_transposes`, its arguments' axes known), a
  cotangent cast to vary as its output (`cotangent_vmas`: those given already varying
  are not cast again) and each result typed as its input;
  `check_cotangents`: JAX's error for a `vjp` cotangent typed otherwise;
  `check_jvp_tangents`: JAX's error for a `custom_jvp` rule's tangent output typed
  otherwise than its primal output;
- `TypedCustomBwd`: a `custom_vjp`'s `bwd` rule, which gets and gives JAX's
  cotangents: as they are in a typed backward pass; in a per-device one (the body
  differentiated from outside) an invariant output's cotangent summed on the way in
  and an invariant operand's split evenly on the way out.
"""
from __future__ import annotations

import contextlib

import numpy as np

from .. import core
from ..core import bind
from ..errors import (ArgumentTypeError, ArgumentValueError, NotImplementedInAstjaxError,
                      caller_location)
from .collectives import psum_p
from .collectives_typed import pvary_p, transposing_typed, typed_transposes
from .elementwise import div_p
from .vma import (_bodies, _inputs, _vma_str, staged_vma, staged_vmas,  # noqa: F401
                  staging_inputs, vma_env)   # (staging_inputs: for ad_api)

__all__ = ["TypedClosedJaxpr", "reverse_typed", "typed_backward", "cotangent_vmas",
           "TypedCustomBwd", "transposing", "check_cotangents", "check_jvp_tangents",
           "staging_inputs"]


class TypedClosedJaxpr(core.ClosedJaxpr):
    """A function differentiated in reverse mode inside a `check_vma` shard_map body,
    with the varying axes JAX types its cotangents by: the body's manual axes
    (`manual`, in mesh order), per input leaf its varying axes (`in_vmas`), per output
    leaf its varying axes (`out_vmas`)."""
    __slots__ = ("manual", "in_vmas", "out_vmas")


def reverse_typed(closed, leaves, what="grad"):
    """`closed` (a function of `leaves` about to be differentiated in reverse mode) as
    a `TypedClosedJaxpr` when it is staged inside a `check_vma` shard_map body (its
    backward pass then JAX's typed one: `typed_backward`); else `closed` itself.

    Where the varying axes of an input are not known (a function staged without
    `staging_inputs`, e.g. a custom_jvp's) astjax cannot type its cotangents: a located
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
    _, mesh, auto = _bodies()[-1][:3]
    typed = TypedClosedJaxpr(closed.jaxpr, closed.consts)
    typed.manual = [a for a in mesh.axis_names if a not in auto]
    typed.in_vmas, typed.out_vmas = ins, outs
    return typed


def typed_backward(closed, known, transpose, nres, in_mask, ct_outs, ct_vmas=None):
    """The backward pass `bwd = transpose()` (residuals from `known`, cotangents of
    outputs `ct_outs` -> those of the differentiable inputs in `in_mask`) of `closed`,
    with JAX's typed cotangents when it is a `reverse_typed` function: staged with its
    arguments' axes known and JAX's typed transposes (`transposing`), a cotangent
    given for an output varying over manual axes cast to vary over those it does not
    vary over already (`ct_vmas`, per output: `cotangent_vmas`; None: none, as grad's seed:
    `pvary` of the ones, as JAX's), and each result typed as its input (a `pvary` where
    it is less varying, e.g. a constant)."""
    with transposing(closed, known, nres, ct_outs):
        bwd = transpose()
    if not isinstance(closed, TypedClosedJaxpr):
        return bwd
    ins = [i for i, (m, v) in enumerate(zip(in_mask, closed.jaxpr.invars))
           if m and core.differentiable(v.aval)]
    assert len(ins) == len(bwd.jaxpr.outvars), (ins, bwd.jaxpr.outvars)
    res = _closed_vmas(known, closed.in_vmas)[len(known.jaxpr.outvars) - nres:]
    cts = [closed.out_vmas[i] for i in ct_outs]
    got = _closed_vmas(bwd, res + cts)
    more = [tuple(a for a in closed.manual if a in closed.in_vmas[i] and g is not None
                  and a not in g) for i, g in zip(ins, got)]
    given = [ct_vmas[i] if ct_vmas and i < len(ct_vmas) else () for i in ct_outs]
    seeds = [tuple(a for a in closed.manual if a in v and a not in g)
             for v, g in zip(cts, given)]
    if not any(more) and not any(seeds):
        return bwd

    def fn(*args):
        cts = [bind(pvary_p, c, axes=a) if a else c for c, a in zip(args[nres:], seeds)]
        outs = core.inline_jaxpr(bwd.jaxpr, bwd.consts, list(args[:nres]) + cts)
        return [bind(pvary_p, o, axes=m) if m and isinstance(o, core.Tracer) else o
                for o, m in zip(outs, more)]
    return core.stage(fn, bwd.in_avals, [v.hint for v in bwd.jaxpr.invars])


def cotangent_vmas(closed, cts):
    """The manual axes the cotangents `cts` (one per output of `closed`) given to its
    backward pass vary over, for `typed_backward` (and as the key of its result): None
    when `closed` is not a `reverse_typed` function or none varies."""
    if not isinstance(closed, TypedClosedJaxpr):
        return None
    vmas = tuple(frozenset(v or ()) for v in staged_vmas(list(cts)))
    return vmas if any(vmas) else None


class TypedCustomBwd:
    """A `custom_vjp`'s `bwd` (`bwd(res, cts) -> cts of its operand leaves`) called
    with JAX's typed cotangents when the call is staged inside a `check_vma` body.

    In a typed backward pass (`typed_backward`) the cotangents are JAX's: the rule gets
    them cast to vary as the outputs. In a per-device one (the body transposed from
    outside the shard_map) a value invariant over manual axes has per-device shares
    whose sum is JAX's cotangent; the user's rule is written for JAX's. So there the
    cotangent of an output invariant over axes is summed over them on the way in (a
    constant one: times their device count), and the rule's cotangent of an operand
    invariant over axes split evenly over their devices on the way out. `outputs(outs)`
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
        if transposing_typed():     # (JAX's cotangents already: typed as the outputs)
            got = self.bwd(res, [_typed_as(c, vma, manual) for c, vma in zip(cts, outs)])
            self._check(got, ins)
            return got

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


def _typed_as(ct, vma, manual):
    """A cotangent cast to vary over the manual axes `vma` of its primal (a staged one
    that varies over fewer: JAX's cotangent is typed as the primal)."""
    if not isinstance(ct, core.Tracer):
        return ct
    got = staged_vma(ct)
    axes = tuple(a for a in manual if a in vma and got is not None and a not in got)
    return bind(pvary_p, ct, axes=axes) if axes else ct


@contextlib.contextmanager
def transposing(closed, known, nres, ct_outs):
    """While the backward pass of `closed` (a `reverse_typed` function: residuals from
    `known`, then the cotangents of its outputs `ct_outs`) is staged: its arguments
    vary as JAX types them (a gradient taken inside a `custom_vjp`'s bwd rule), and
    the transposes are JAX's typed ones (`collectives_typed.typed_transposes`)."""
    if not isinstance(closed, TypedClosedJaxpr):
        yield
        return
    res = _closed_vmas(known, closed.in_vmas)[len(known.jaxpr.outvars) - nres:]
    _inputs().append((len(core._state.builders),
                      list(res) + [closed.out_vmas[i] for i in ct_outs]))
    try:
        with typed_transposes(True):
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
    `y` in JAX), and the value is the same on those devices. Returns their
    `cotangent_vmas`."""
    if not isinstance(closed, TypedClosedJaxpr):
        return None
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
    return cotangent_vmas(closed, cts)


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
