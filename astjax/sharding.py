"""`astjax.sharding` (`jax.sharding`): the public face of device layouts.

The data model -- `Mesh`, `AbstractMesh`, `AxisType`, `PartitionSpec`,
`NamedSharding`, `SingleDeviceSharding`, `set_mesh` / `get_mesh` ... -- lives in
`sharding_impls` (layer L0, which everything below the API may import); this module
re-exports it and adds the names that need the layers above: `reshard` (the
partitioning primitive of `primitives/spmd.py`), `auto_axes` / `explicit_axes`, which
run a function with some axes of the current mesh switched to another `AxisType`
(JAX's `jax.sharding.auto_axes` / `explicit_axes`), and the public `set_mesh` /
`get_mesh`, which, as JAX's, refuse to run inside a staged function (`jit`, `grad`,
`vmap`, ...: JAX's ValueError; astjax's own code sets meshes there through
`sharding_impls`).
"""
import functools

import numpy as _np

from . import core as _core
from . import sharding_impls as _shd
from . import tree_util as _tree
from .api import typeof as _typeof
from .errors import ArgumentTypeError, ArgumentValueError, caller_location
from .primitives.spmd import reshard
from .primitives.untyped_made import not_made_here as _not_made_here
from .sharding_impls import *  # noqa: F401,F403
from .sharding_impls import __all__ as _model

__all__ = list(_model) + ["reshard", "auto_axes", "explicit_axes"]


class set_mesh(_shd.set_mesh):
    """`jax.set_mesh`: make `mesh` (a `Mesh`, or None: no mesh) the current mesh of this
    thread, at once (a global setter) and, used as a context manager, only until the
    `with` block ends. As JAX's, only outside a staged function (`jit`, `grad`, `vmap`,
    `make_jaxpr`, ...), and never with Manual axes (`shard_map` makes axes manual)."""

    def __init__(self, mesh):
        loc = caller_location()
        if mesh is not None and not isinstance(mesh, _shd.Mesh):
            raise ArgumentValueError(f"Expected mesh of type `jax.sharding.Mesh`. Got "
                                     f"{type(mesh)}", loc=loc)
        if _core.current_builder() is not None:
            raise ArgumentValueError("`set_mesh` can only be used outside of `jax.jit`.",
                                     hint="enter `with jax.set_mesh(mesh):` around the "
                                          "call of the jitted function instead", loc=loc)
        if mesh is not None and _shd.AxisType.Manual in mesh.axis_types:
            raise ArgumentValueError(
                f"mesh {mesh} contains manual axes which is not allowed when using "
                "`jax.set_mesh`. Please use `jax.shard_map` to enter into `Manual` mode "
                "instead.", loc=loc)
        super().__init__(_shd.Mesh(_np.empty((), object), ()) if mesh is None else mesh)


def get_mesh():
    """`jax.sharding.get_mesh`: the mesh `set_mesh` made current here (an empty `Mesh`
    when none is); as JAX's, only outside a staged function."""
    if _core.current_builder() is not None:
        raise ArgumentValueError("`get_mesh` can only be used outside of `jax.jit`. Maybe "
                                 "you want `jax.sharding.get_abstract_mesh()`?",
                                 loc=caller_location())
    return _shd.get_mesh()


def _axis_names(axes, mesh):
    if axes is None:
        return tuple(mesh.axis_names)
    return (axes,) if isinstance(axes, str) else tuple(axes)


def _retyped(mesh, names, kind):
    """`mesh` with the axes `names` of AxisType `kind` (the others unchanged)."""
    types = tuple(kind if n in names else t for n, t in zip(mesh.axis_names, mesh.axis_types))
    return _shd.Mesh(mesh.devices, mesh.axis_names, axis_types=types)


def _without_axes(spec, names):
    """`spec` with the mesh axes `names` removed from every entry."""
    def entry(e):
        if e is None:
            return None
        kept = tuple(n for n in (e if isinstance(e, tuple) else (e,)) if n not in names)
        return None if not kept else kept[0] if len(kept) == 1 else kept
    return _shd.PartitionSpec(*[entry(e) for e in spec])


def _untyped(mesh):
    """The axes of `mesh` that types do not carry (Auto and Manual ones)."""
    return {n for n, t in zip(mesh.axis_names, mesh.axis_types) if t != _shd.AxisType.Explicit}


def _with_current_mesh(f, keyword, given, run):
    """`f` wrapped: each call takes `keyword` (unless `given` here) off its keywords and
    returns `run(mesh, value, args, kwargs)` for the current mesh."""
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        value = given
        if value is None:
            if keyword not in kwargs:
                raise ArgumentTypeError(f"Missing required keyword argument: '{keyword}'")
            value = kwargs.pop(keyword)
        return run(_shd.get_mesh(), value, args, kwargs)
    return wrapper


def auto_axes(f=None, /, *, axes=None, out_sharding=None):
    """Run `f` with the mesh axes `axes` (all when None) of the current mesh made
    `Auto` (XLA lays values out along them; types do not carry them), and reshard its
    result to `out_sharding` (given here or as a keyword of each call)."""
    if f is None:
        return lambda g: auto_axes(g, axes=axes, out_sharding=out_sharding)

    def run(mesh, out, args, kwargs):
        if not mesh.axis_names:
            return f(*args, **kwargs)
        names = _axis_names(axes, mesh)
        if {n for n, t in zip(mesh.axis_names, mesh.axis_types)
                if t == _shd.AxisType.Auto} == set(names):   # already Auto: a plain call
            return f(*args, **kwargs)
        inner = _retyped(mesh, names, _shd.AxisType.Auto)
        with _shd.set_mesh(inner):
            specs = _tree.tree_map(
                lambda a: _without_axes(_typeof(a).sharding.spec, _untyped(inner)), args)
            with _not_made_here():      # (values made inside: no Explicit type)
                res = f(*reshard(args, specs), **kwargs)
        return reshard(res, out)
    return _with_current_mesh(f, "out_sharding", out_sharding, run)


def explicit_axes(f=None, /, *, axes=None, in_sharding=None):
    """Run `f` with the mesh axes `axes` (all when None) of the current mesh made
    `Explicit`, its arguments resharded to `in_sharding` (given here or as a keyword
    of each call); the result leaves with those axes dropped from its types."""
    if f is None:
        return lambda g: explicit_axes(g, axes=axes, in_sharding=in_sharding)

    def run(mesh, ins, args, kwargs):
        if not mesh.axis_names:
            raise ArgumentValueError(
                "Context mesh cannot be empty. Please use `jax.set_mesh` API to enter into "
                "a mesh context when using `explicit_axes` API.")
        with _shd.set_mesh(_retyped(mesh, _axis_names(axes, mesh), _shd.AxisType.Explicit)):
            res = f(*reshard(args, ins), **kwargs)
        return reshard(res, _tree.tree_map(
            lambda o: _without_axes(_typeof(o).sharding.spec, _untyped(mesh)), res))
    return _with_current_mesh(f, "in_sharding", in_sharding, run)
