"""`astjax.vmap`: vectorizing map, as an IR -> IR transform.

`vmap(f, in_axes, out_axes, axis_name, axis_size)` returns a `StagedCallable`.
Called while staging (inside `jit`, `grad`, another `vmap`, ...), it stages `f` on
the per-example avals (with `axis_name` in scope for collectives) and batches that
jaxpr into the current builder (`transforms.batching.batch_jaxpr`). Called on
concrete values, it runs through `jit` (compiled and cached per signature).

`in_axes` / `out_axes`: an int (negative counts from the end), None (not mapped), or
a pytree prefix of the arguments / outputs, as in JAX. A top-level list `in_axes` is
read as a tuple. Keyword arguments are always mapped over axis 0.
"""
from __future__ import annotations

import functools
import operator
import inspect
from collections.abc import Callable, Hashable
from typing import Any, NamedTuple, TypeVar, overload

import numpy as np

from . import core, dtypes, hi_state, hi_values, name_stack, tree_util, util
from .api import Jitted
from .extend.core import eager_staging, eager_transform as _eager_transform
from .errors import (ArgumentError, ArgumentTypeError, ArgumentValueError,
                     NotImplementedInAstjaxError, ShapeError, caller_location, check_callable,
                     check_signature)
from .staging import (StagedCallable, as_callable, leaf_labels, mapped_leaves, stage_flat,
                      wrapped_signature)
from .transforms import batching  # noqa: F401  (registers the batch rules)
from .transforms.batching import is_vmappable as _is_vmappable, vmappables
from .primitives.slicing import index_in_dim as _index_in_dim
from .primitives.custom_derivatives import SymbolicZero as _SymbolicZero
from .primitives.state import Ref, ref_get, ref_set
from .primitives.vma import staging_inputs
from .codegen import compile_cache
from .codegen.explicit_control import broadcast_mapped, check_mapped, mapped, mapped_axis
from .traceback_util import at_boundary as _at_boundary, boundary as _boundary
from .primitives.while_loop import eager_builder
from .transforms.discharge import discharge_closed

__all__ = ["vmap", "BatchedFunction"]


def _is_axis_leaf(v):
    return v is None or (isinstance(v, int) and not isinstance(v, bool))


def _check_axes_spec(spec, what):
    leaves = tree_util.tree_leaves(spec, is_leaf=_is_axis_leaf)
    for v in leaves:
        if not _is_axis_leaf(v):
            raise ArgumentTypeError(
                f"vmap {what} must be an int, None, or a (nested) tuple/list/dict of them, "
                f"got {type(v).__name__} {v!r:.40} in {spec!r:.80}",
                hint=f"e.g. {what}=0, {what}=(None, 0), {what}={{'w': None, 'x': 0}}",
                loc=caller_location())


def _broadcast_prefix(prefix, tree, what, loc, is_leaf=None):
    """One axis per leaf of `tree` (leaves as `is_leaf` says), from `prefix` (a pytree
    prefix of `tree`)."""
    pdef = tree_util.tree_structure(prefix, is_leaf=_is_axis_leaf)
    paxes = tree_util.tree_leaves(prefix, is_leaf=_is_axis_leaf)
    try:
        subtrees = tree_util._flatten_up_to(pdef, tree)
    except ValueError as e:
        raise ArgumentValueError(
            f"vmap {what} specification {prefix!r:.80} does not match the structure of the "
            f"values it describes ({tree_util.tree_structure(tree)!r:.80}): {e}",
            hint=f"{what} must be a tree prefix of the arguments: one entry per positional "
                 "argument, each an int, None, or a matching container",
            loc=loc) from None
    out = []
    for ax, sub in zip(paxes, subtrees):
        out.extend([ax] * len(tree_util.tree_leaves(sub, is_leaf=is_leaf)))
    return out


# -- vmappable types (JAX's `batching.register_vmappable`) -----------------------------

class _Mapped:
    """An array of a vmappable value with the axis `vmap` maps it along: `x` the batched
    array, `axis` its mapped axis (None: not mapped), `i` its position among the flat
    results on the way out; `shape` / `ndim` / `dtype` are the per-example array's (a
    `from_elt` reads them). Not a pytree node: a leaf wherever it goes."""
    __slots__ = ("x", "axis", "i")

    def __init__(self, x, axis, i=-1):
        self.x, self.axis, self.i = x, axis, i

    @property
    def shape(self):
        shape = core.get_aval(self.x).shape
        return shape if self.axis is None else shape[:self.axis] + shape[self.axis + 1:]

    ndim = property(lambda self: len(self.shape))
    dtype = property(lambda self: core.get_aval(self.x).dtype)


_ELT_HINT = ("a to_elt rule builds the per-example value from cont(leaf, axis) of its "
             "value's own leaves, unchanged")


def _elt(v, axis, axis_size):
    """The per-example value of the vmappable `v` mapped along `axis`, its arrays
    `_Mapped`. Its `to_elt` runs on staged stand-ins (its constructors check the
    per-example arrays as JAX's do on tracers): `cont(x, axis)` is `x` indexed at 0
    along `axis`, and each array of the result is traced back to the `x` it came from."""
    leaves, tree = tree_util.tree_flatten(v)
    came_from, found = {}, []

    def body(*xs):
        where = {id(x): k for k, x in enumerate(xs)}

        def cont(x, ax):
            if id(x) not in where:
                raise ArgumentTypeError(
                    f"vmap: the to_elt rule of {type(v).__name__} mapped an array that is "
                    f"not one of its value's leaves", hint=_ELT_HINT, loc=caller_location())
            y = _index_in_dim(x, 0, ax, keepdims=False)
            came_from[id(y)] = (where[id(x)], ax)
            return y
        elt = vmappables[type(v)][0](cont, axis_size, tree_util.tree_unflatten(tree, xs), axis)
        ys, elt_tree = tree_util.tree_flatten(elt)
        found[:] = [elt_tree, [came_from.get(id(y)) for y in ys]]
        return ys

    core.stage(body, [core.get_aval(x) for x in leaves])
    elt_tree, picked = found
    if None in picked:
        raise ArgumentTypeError(f"vmap: the to_elt rule of {type(v).__name__} made arrays "
                                f"other than those its `cont` returned", hint=_ELT_HINT,
                                loc=caller_location())
    return tree_util.tree_unflatten(elt_tree, [_Mapped(leaves[k], ax) for k, ax in picked])


def _vmappable_elts(args, in_axes, axis_size, loc):
    """`args` with each vmappable value replaced by its per-example value, whose arrays
    are `_Mapped` (the batched array and its axis); `args` itself when there is none."""
    flat, tree = tree_util.tree_flatten(tuple(args), is_leaf=_is_vmappable)
    if not any(map(_is_vmappable, flat)):
        return args
    if isinstance(in_axes, tuple):
        dims = _broadcast_prefix(in_axes, tuple(args), "in_axes", loc, is_leaf=_is_vmappable)
    else:
        dims = [in_axes] * len(flat)
    if axis_size is None:   # (JAX's: read from the mapped values' shapes, these included)
        shapes = [(np.shape(v), d) for v, d in zip(flat, dims) if d is not None]
        axis_size = next((sh[d] for sh, d in shapes if -len(sh) <= d < len(sh)), None)
    flat = [_elt(v, d, axis_size) if _is_vmappable(v) and d is not None else v
            for v, d in zip(flat, dims)]
    return tree_util.tree_unflatten(tree, flat)


def _axis_size(axis_size, mapped_sizes, loc):
    """`vmap`'s `axis_size` as an int: JAX's TypeError for one that is not an integer
    (a float equal to the mapped arguments' size is used as that size, as JAX does)."""
    try:
        return operator.index(axis_size)
    except TypeError:
        if axis_size in mapped_sizes:
            return int(axis_size)
        raise ArgumentTypeError(f"vmap axis_size must be an integer, got {axis_size!r} of "
                                f"type {type(axis_size).__name__}",
                                hint="pass axis_size=n with n a Python int", loc=loc) from None


class BatchedFunction(StagedCallable):
    """`vmap(f, ...)`."""

    def __init__(self, fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None,
                 spmd_axis_name=None):
        if isinstance(in_axes, list):
            in_axes = tuple(in_axes)
        _check_axes_spec(in_axes, "in_axes")
        _check_axes_spec(out_axes, "out_axes")
        self.fun = fun
        self.in_axes, self.out_axes = in_axes, out_axes
        self.axis_name, self.axis_size = axis_name, axis_size
        self.spmd_axis_name = spmd_axis_name
        self._guard = None
        util.wraps_function(self, fun)

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __repr__(self):
        return f"vmap({getattr(self.fun, '__name__', self.fun)!s})"

    __signature__ = property(wrapped_signature)
    _jitted = property(lambda self: self._guard and self._guard.state)   # (its eager calls')

    @_boundary
    def __call__(self, *args, **kwargs):
        try:   # (an API boundary: a user's exception leaves it filtered, traceback_util)
            fixed = self._unmapped_objects(args)
            if fixed:
                return self._with_fixed(args, fixed)(*[
                    a if i not in fixed else fixed[i].passed(a) for i, a in enumerate(args)
                    if not isinstance(fixed.get(i), _Whole)], **kwargs)
            if core.current_builder() is not None:
                return self.stage_inline(*args, **kwargs)
            if self._guard is None:   # (staged again once a global `fun` reads is rebound)
                # (with hijax Variables: those it returns handed back past the program)
                target = self._eager = (_HiOutputs(self) if hi_state.active()
                                        else self)
                self._guard = compile_cache.Guarded(lambda: Jitted(target))
            with _eager_transform(), eager_builder():   # (an extension primitive's impl
                out = self._guard.get(self.fun).run_compiled(args, kwargs, hosts=True)   # lower)
            return out if self._eager is self else self._eager.put_back(out)
        except Exception as e:
            _at_boundary(e)
            raise

    # -- unmapped arguments that are not arrays ---------------------------------------

    def _unmapped_objects(self, args):
        """Positions of the arguments JAX hands to the function as they are, in whole
        (`_Whole`) or in part (`_SomeLeaves`): the leaves with in_axes None that are no
        arrays (Python scalars, functions, other objects; equinox's `AdaptivePool` maps
        `f(x, size, operation)` with `(0, None, None)` and computes shapes from `size`,
        flax's `lift.vmap` passes `(x, features)` with `(0, None)`). Such a leaf must be
        hashable: it is fixed per value."""
        axes = self.in_axes
        if axes is None:
            axes = (None,) * len(args)
        if not isinstance(axes, tuple) or len(axes) != len(args):
            return {}
        fixed = {}
        for i, (ax, a) in enumerate(zip(axes, args)):
            leaves, treedef = tree_util.tree_flatten(a)
            try:
                leaf_axes = _broadcast_prefix(ax, a, "in_axes", None)
            except ArgumentValueError:
                continue   # (staging reports the mismatch)
            some = tuple((j, x) for j, (x, d) in enumerate(zip(leaves, leaf_axes))
                         if d is None and not _is_array(x) and util.hashable(x))
            if not some:
                continue
            if len(some) == len(leaves) and util.hashable(a):
                fixed[i] = _Whole(a)
                continue
            fixed[i] = _SomeLeaves(treedef, some, tuple(
                d for j, d in enumerate(leaf_axes) if j not in dict(some)))
        return fixed

    def _with_fixed(self, args, fixed):
        """This vmap of `fun` with the arguments (or leaves) `fixed` bound (one per their
        values)."""
        key = (len(args), tuple(fixed.items()))
        variants = self.__dict__.setdefault("_variants", {})
        inner = variants.get(key)
        if inner is None:
            axes = self.in_axes if self.in_axes is not None else (None,) * len(args)
            inner = variants[key] = BatchedFunction(
                _FixedArgs(self.fun, len(args), fixed),
                tuple(ax if i not in fixed else fixed[i].axes for i, ax in enumerate(axes)
                      if not isinstance(fixed.get(i), _Whole)),
                self.out_axes, self.axis_name, self.axis_size, self.spmd_axis_name)
        return inner

    # -- staging --------------------------------------------------------------------

    def _in_dims(self, args, kwargs, loc):
        in_axes = self.in_axes
        if isinstance(in_axes, tuple):
            if len(in_axes) != len(args):
                raise ArgumentValueError(
                    f"vmap in_axes must be an int, None, or a tuple of entries corresponding "
                    f"to the positional arguments passed to the function, but got "
                    f"len(in_axes)={len(in_axes)}, len(args)={len(args)}",
                    hint="give one in_axes entry per positional argument", loc=loc)
            dims = _broadcast_prefix(in_axes, tuple(args), "in_axes", loc)
        elif isinstance(in_axes, dict):
            raise ArgumentTypeError("vmap in_axes must be an int, None, or a tuple (one entry per "
                                "positional argument), got a dict",
                                hint="wrap it in a tuple: in_axes=({...},)", loc=loc)
        else:
            dims = [in_axes] * len(tree_util.tree_leaves(tuple(args)))
        dims += [0] * len(tree_util.tree_leaves(kwargs))
        return dims

    def stage_inline(self, *args, **kwargs):
        if not hi_state.active():
            return self._stage(args, kwargs)
        # hijax Variables the function closes over and writes: passed in unmapped, their
        # final states returned unmapped and stored back (JAX's effects under vmap)
        return hi_state.carrying(lambda: self._stage(args, kwargs),
                                 lambda objs: self._stage_carrying(objs, args, kwargs))

    def _stage_carrying(self, objs, args, kwargs):
        cap = hi_state.Lowering(list(objs))
        axes = self.in_axes if isinstance(self.in_axes, tuple) else (self.in_axes,) * len(args)
        inner = BatchedFunction(hi_values.closed_over(self.fun, objs), (*axes, None),
                                (self.out_axes, None), self.axis_name, self.axis_size,
                                self.spmd_axis_name)
        inner._hi_states = len(cap.objs)
        out, states = inner._stage((*args, cap.tree), kwargs)
        cap.write_back(states)
        return out

    def _stage(self, args, kwargs):
        loc = caller_location()
        check_signature(self.fun, args, kwargs, "vmap")
        elts = args
        if vmappables:   # (their arrays come back `_Mapped`, each with its own axis)
            elts = _vmappable_elts(args, self.in_axes, self.axis_size, loc)
        dims = self._in_dims(elts, kwargs, loc)
        if elts is not args:
            args = elts
            dims = [x.axis if isinstance(x, _Mapped) else d
                    for x, d in zip(tree_util.tree_leaves((tuple(args), kwargs)), dims)]
            args, kwargs = tree_util.tree_map(
                lambda x: x.x if isinstance(x, _Mapped) else x, (tuple(args), kwargs),
                is_leaf=lambda x: isinstance(x, _Mapped))
        # a negative axis of a key array counts its key axes, not the key data's
        dims = [d + x.ndim if d is not None and d < 0 and _is_key(x) else d
                for d, x in zip(dims, tree_util.tree_leaves((tuple(args), kwargs)))]
        leaves, in_tree = tree_util.flatten_for_staging((tuple(args), kwargs))
        names = leaf_labels(self.fun, args, kwargs)
        for x, d, name in zip(leaves, dims, names):
            if d is not None and hi_state.is_mutable(x):   # (JAX: an AttributeError)
                raise HiBatchingError(
                    f"vmap maps {name}, a mutable hi value (hijax Variable): its hi "
                    f"primitives define no batching rule",
                    hint="pass it unmapped (in_axes=None), or map its arrays "
                         "(e.g. nnx.with_vars(..., hijax=False))", loc=loc)
        # a mapped Ref argument: its value is mapped, the function gets a Ref of a slice
        refs = {i: x for i, (x, d) in enumerate(zip(leaves, dims))
                if d is not None and isinstance(x, Ref)}
        leaves = [ref_get(refs[i]) if i in refs else x for i, x in enumerate(leaves)]
        in_avals, norm_dims, sizes = mapped_leaves(
            "vmap", leaves, dims, names, loc, "use in_axes=None for arguments that are not mapped")
        avals = [batching.unmapped_aval(a, d) for a, d in zip(in_avals, norm_dims)]
        avals = [core.AbstractRef(a) if i in refs else a for i, a in enumerate(avals)]
        size_set = {s for *_, s in sizes}
        if self.axis_size is not None:
            size_set.add(_axis_size(self.axis_size, size_set, loc))
        if not sizes and self.axis_size is None:
            raise ArgumentValueError("vmap must have at least one non-None value in in_axes "
                                "(or be given axis_size)",
                                hint="map at least one argument, e.g. in_axes=0", loc=loc)
        if len(size_set) > 1:
            lines = "\n".join(f"  * {n} of shape {sh} has size {s} along axis {d}"
                              for n, sh, d, s in sizes)
            if self.axis_size is not None:
                lines += f"\n  * axis_size={self.axis_size}"
            raise ArgumentValueError("vmap got inconsistent sizes for array axes to be "
                                     "mapped:\n" + lines,   # (JAX's words)
                                     hint="every mapped argument needs the same size along its "
                                          "mapped axis", loc=loc)
        size = size_set.pop()
        axis = mapped_axis(leaves, norm_dims, self.spmd_axis_name, loc)   # (JAX's errors)
        # (hijax Variables it returns -- unmapped ones it was given: flax's nnx.vmap --
        # are handed back as they are, as JAX's vmap hands them)
        passed = _HiOutputs(self.fun) if hi_state.active() else self.fun
        with core.extend_axis_env(self.axis_name, size), mapped(norm_dims), \
                staging_inputs(leaves), \
                eager_staging(leaves, [d is not None for d in norm_dims]), \
                eager_builder(function=True):
            closed, out_tree = stage_flat(passed, in_tree, avals)
        check_mapped(closed, leaves, norm_dims)   # (JAX's sharding-in-types errors, unbatched)
        closed = discharge_closed(closed, "vmap", lift=refs)   # mutable references -> values
        with name_stack.transform_name_stack("vmap"):
            outs, out_dims = batching.batch_jaxpr(closed, norm_dims, size, self.axis_name,
                                                  leaves)
        k = len(outs) - len(refs)
        for i, x, d in zip(sorted(refs), outs[k:], out_dims[k:]):   # final values stored back
            ref_set(refs[i], ..., batching.matchaxis(x, d, norm_dims[i], size))
        outs, out_dims = outs[:k], out_dims[:k]
        out_value = tree_util.tree_unflatten(out_tree, outs)
        out_keys = [_is_key(x) for x in tree_util.tree_leaves(out_value)]

        def finish(i, x, d, want):   # one flat result, its mapped axis moved to `want`
            if want is None:
                if d is not None and i >= len(outs) - self._hi_leaves(out_tree):
                    raise HiBatchingError(
                        "a mutable hi value (hijax Variable) the vmapped function closes "
                        "over is written a batched value: its hi primitives define no "
                        "batching rule", hint="write it an unbatched value (e.g. a mean "
                                              "over the batch), or pass it mapped", loc=loc)
                if d is not None:   # (JAX's words, naming the output's key path)
                    path = tree_util.keystr(tree_util.treedef_paths(out_tree)[i])
                    raise ArgumentValueError(
                        f"at vmap out_axes{path}, got axis spec None but output was "
                        f"batched on axis {d}",
                        hint="use out_axes=0 for outputs that depend on mapped inputs", loc=loc)
                return x
            nd = core.get_aval(x).ndim + (d is None)
            if out_keys[i] and want < 0:
                want += nd - 1  # the key-data axis stays last
            if not -nd <= want < nd:
                raise ArgumentValueError(f"vmap out_axes={want} is out of bounds for an output of "
                                         f"rank {nd}", hint=f"use an axis in [-{nd}, {nd - 1}]",
                                         loc=loc)
            return (batching.matchaxis(x, d, want % nd, size) if d is not None
                    else broadcast_mapped(x, want % nd, size, axis))

        if vmappables and any(map(_is_vmappable, tree_util.tree_leaves(
                out_value, is_leaf=_is_vmappable))):
            out = self._vmappable_outs(out_tree, outs, out_dims, finish, size, loc)
        else:
            out_axes = _broadcast_prefix(self.out_axes, out_value, "out_axes", loc)
            out = tree_util.tree_unflatten(out_tree, [
                finish(i, *r) for i, r in enumerate(zip(outs, out_dims, out_axes))])
        return passed.put_back(out) if passed is not self.fun else out


    def _vmappable_outs(self, out_tree, outs, out_dims, finish, size, loc):
        """The results, vmappable values among them made batched by their `from_elt`
        (their out_axes entry is the axis they get, checked by it)."""
        tree = tree_util.tree_unflatten(out_tree, [
            _Mapped(x, d, i) for i, (x, d) in enumerate(zip(outs, out_dims))])
        is_leaf = lambda v: _is_vmappable(v) or isinstance(v, _Mapped)   # noqa: E731
        flat, top = tree_util.tree_flatten(tree, is_leaf=is_leaf)
        out_axes = _broadcast_prefix(self.out_axes, tree, "out_axes", loc, is_leaf=is_leaf)
        done = []
        for v, want in zip(flat, out_axes):
            if isinstance(v, _Mapped):
                done.append(finish(v.i, v.x, v.axis, want))
            elif want is not None and _is_vmappable(v):
                done.append(vmappables[type(v)][1](
                    lambda _size, m, ax: finish(m.i, m.x, m.axis, ax), size, v, want))
            else:   # (a vmappable left unmapped, or a leaf holding results: a key array)
                marks, t = tree_util.flatten_for_staging(v)
                done.append(tree_util.tree_unflatten(
                    t, [finish(m.i, m.x, m.axis, want) for m in marks]))
        return tree_util.tree_unflatten(top, done)

    _hi_states = 0   # (a `_stage_carrying` wrapper: its results end with these states)

    def _hi_leaves(self, out_tree):
        """How many of the flat results are states of hijax Variables stored back."""
        if not self._hi_states:
            return 0
        return out_tree.children[1].num_leaves


class HiBatchingError(NotImplementedInAstjaxError):
    """A batched value written into a mutable hi value under `vmap` (JAX: the hi
    primitive has no batching rule, a NotImplementedError)."""


_is_key = dtypes.has_extended_dtype  # a typed PRNG key array (key data trailing)


_AD_PLACEHOLDERS = (core.Zero, core.UndefinedPrimal, _SymbolicZero)


def _is_array(x):
    """An array leaf (an Array, a staged value, a NumPy array or a key array), not a
    Python scalar or another object; a hi value (a hijax Variable) is none, even where
    it forwards `aval` to its contents), nor an AD placeholder (a symbolic zero, an
    undefined primal: an `aval` but no value, handed to the function as it is, as
    equinox's batched primitives pass them to their JVP and transpose rules)."""
    if hi_state.hi_type(x) is not None or isinstance(x, _AD_PLACEHOLDERS):
        return False
    return (isinstance(x, (core.Tracer, np.ndarray)) or hasattr(x, "_buf") or _is_key(x)
            or isinstance(getattr(x, "aval", None), core.ShapedArray))


def _none_or_hi(x):
    return x is None or hi_state.is_mutable(x)


class _HiOutputs:
    """`fun` returning None where it returns mutable hi values it was given or closes
    over (`objs`, at `where` among its leaves and Nones), and their arrays (`hi_state.Lo`
    nodes, at `new`) where it returns ones it made (flax's nnx.vmap returns new hijax
    Variables): `put_back` puts the former back into the batched result and raises the
    latter to new values of their batched arrays, as JAX's vmap raises a hi output."""

    def __init__(self, fun):
        self.fun, self.objs, self.where, self.new = fun, [], [], []

    def __call__(self, *args, **kwargs):
        with hi_state.made_inside() as made:
            out = as_callable(self.fun)(*args, **kwargs)
        leaves, treedef = tree_util.tree_flatten(out, is_leaf=_none_or_hi)
        his = [i for i, x in enumerate(leaves) if hi_state.is_mutable(x)]
        self.where = [i for i in his if id(leaves[i]) not in made]
        self.new = [i for i in his if id(leaves[i]) in made]
        if not his:
            return out
        self.objs = [leaves[i] for i in self.where]
        for i in self.where:
            leaves[i] = None
        for k, i in enumerate(self.new):
            leaves[i] = hi_state.lowered(leaves[i], k)
        return tree_util.tree_unflatten(treedef, leaves)

    def put_back(self, out):
        if not self.where and not self.new:
            return out
        leaves, treedef = tree_util.tree_flatten(
            out, is_leaf=lambda x: x is None or isinstance(x, hi_state.Lo))
        for i, obj in zip(self.where, self.objs):
            leaves[i] = obj
        for i in self.new:
            leaves[i] = hi_state.raised(leaves[i])
        return tree_util.tree_unflatten(treedef, leaves)


class _FixedArgs:
    """`fun` with the positional arguments `fixed` ({position: value}) bound; called
    with the others, converted as any user function is (`staging.as_callable`)."""

    def __init__(self, fun, nargs, fixed):
        self.fun, self.nargs, self.fixed = fun, nargs, fixed
        self.__name__ = getattr(fun, "__name__", type(fun).__name__)
        self.__qualname__ = getattr(fun, "__qualname__", self.__name__)
        try:   # the signature of the arguments still passed
            sig = inspect.signature(fun)
            params = [p for i, p in enumerate(sig.parameters.values())
                      if not isinstance(fixed.get(i), _Whole) or p.kind not in (p.POSITIONAL_ONLY,
                                                          p.POSITIONAL_OR_KEYWORD)]
            self.__signature__ = sig.replace(parameters=params)
        except (TypeError, ValueError):
            pass

    def __call__(self, *args, **kwargs):
        rest = iter(args)
        full = [next(rest) if i not in self.fixed else self.fixed[i].value(rest)
                for i in range(self.nargs)]
        return as_callable(self.fun)(*full, **kwargs)


class _Whole(NamedTuple):
    """A whole argument vmap hands to its function as it is."""
    arg: Any

    def value(self, rest):
        return self.arg


class _SomeLeaves(NamedTuple):
    """An argument some leaves of which (`fixed`: (leaf index, value) pairs) vmap
    hands to its function as they are; the others are passed (a tuple, over `axes`)."""
    treedef: Any
    fixed: tuple
    axes: tuple

    def passed(self, arg):
        fixed = dict(self.fixed)
        return tuple(x for j, x in enumerate(tree_util.tree_leaves(arg)) if j not in fixed)

    def value(self, rest):
        fixed, passed = dict(self.fixed), iter(next(rest))
        return tree_util.tree_unflatten(self.treedef, [
            fixed[j] if j in fixed else next(passed) for j in range(self.treedef.num_leaves)])


_NO_FUN: Any = object()  # vmap(in_axes=...) without a function: a decorator factory
_F = TypeVar("_F", bound=Callable[..., Any])


@overload
def vmap(fun: _F, in_axes: Any = 0, out_axes: Any = 0, axis_name: Hashable | None = None,
         axis_size: int | None = None, spmd_axis_name: Any = None) -> _F: ...
@overload
def vmap(*, in_axes: Any = 0, out_axes: Any = 0, axis_name: Hashable | None = None,
         axis_size: int | None = None, spmd_axis_name: Any = None) -> Callable[[_F], _F]: ...
def vmap(fun: Any = _NO_FUN, in_axes: Any = 0, out_axes: Any = 0,
         axis_name: Hashable | None = None, axis_size: int | None = None,
         spmd_axis_name: Any = None) -> Any:
    """Vectorizing map: `vmap(f)(xs)` computes `f` on every slice of `xs` along the
    mapped axis, as one batched program. `vmap(in_axes=...)` without a function is a
    decorator; an explicit `vmap(None)` is an error, as in JAX.

    Example:
        >>> import astjax, astjax.numpy as jnp
        >>> astjax.vmap(jnp.dot)(jnp.ones((2, 3)), jnp.ones((2, 3)))
        Array([3., 3.], dtype=float32)
    """
    if fun is _NO_FUN:
        return functools.partial(vmap, in_axes=in_axes, out_axes=out_axes,
                                 axis_name=axis_name, axis_size=axis_size,
                                 spmd_axis_name=spmd_axis_name)
    if not callable(fun):
        raise ArgumentTypeError(f"vmap needs a function, got {type(fun).__name__}",
                                hint="pass the function itself (not its result or its name)",
                                loc=caller_location())
    check_callable(fun, "vmap")   # (a generator function)
    return BatchedFunction(fun, in_axes, out_axes, axis_name, axis_size, spmd_axis_name)
