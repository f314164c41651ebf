"""`astjax.debug` (JAX's `jax.debug`): look at values while a staged program runs —
`print`, `log` and `callback`, called with the run-time values (also under `vmap`,
once per example, and under `grad`, with the primal values), `breakpoint` (a `pdb`
session over the caller's variables holding their run-time values) -- and
`inspect_array_sharding`, `visualize_array_sharding` / `visualize_sharding`, which
report or draw which device holds which block of an array (with `rich`, as JAX
does)."""
from __future__ import annotations

import logging
import os
import string
import sys

import numpy as np

from . import core, tree_util
from . import sharding_impls as _sh
from .codegen import runtime
from .callbacks_api import flat_host_call
from .errors import USER_CODE, ArgumentTypeError, ArgumentValueError, caller_location
from .primitives import effects
from .primitives.callbacks import debug_callback_p
from .primitives.debug_print import bind_debug_print

__all__ = ["print", "log", "callback", "breakpoint", "inspect_array_sharding",
           "visualize_array_sharding", "visualize_sharding", "DebugEffect",
           "OrderedDebugEffect"]


def callback(callback, *args, ordered=False, partitioned=False, **kwargs):
    """Call `callback(*args, **kwargs)` on the NumPy values of its array arguments
    when the program runs; it returns nothing."""
    if not callable(callback):
        raise ArgumentTypeError(f"jax.debug.callback needs a callable, got {callback!r}")
    leaves, host = flat_host_call(callback, args, kwargs, [], None)
    if core.current_builder() is None:
        if ordered:   # (after the programs with ordered debug effects dispatched before)
            effects.wait("debug")
        host(*[np.asarray(x) for x in leaves])
        return None
    debug_callback_p.bind(*leaves, callback=host, ordered=bool(ordered))
    return None


class _Anything:
    """Formats as anything and indexes to itself: checks a format's fields only."""

    def __format__(self, spec):
        return ""

    def __getitem__(self, key):
        return self

    def __getattr__(self, name):
        return self


class _UnusedCheck(string.Formatter):
    """`fmt`'s fields resolved to `_Anything`; arguments no field uses are JAX's
    ValueError, located at `loc`."""

    def __init__(self, loc):
        self.loc = loc

    def get_value(self, key, args, kwargs):
        return _Anything()

    def format_field(self, value, format_spec):
        return ""

    def check_unused_args(self, used_args, args, kwargs):
        unused = [a for i, a in enumerate(args) if i not in used_args]
        if unused:
            raise ArgumentValueError(
                f"Unused positional arguments to `jax.debug.print`: {unused}",
                loc=self.loc, hint="add a `{}` field per argument")
        unused = [k for k in kwargs if k not in used_args]
        if unused:
            raise ArgumentValueError(
                f"Unused keyword arguments to `jax.debug.print`: {unused}. You may be "
                "passing an f-string (i.e, `f\"{x}\"`) into `jax.debug.print` and instead "
                "should pass in a regular string.", loc=self.loc,
                hint="pass a plain string with `{name}` fields")


def _check_format(fmt, args, kwargs):
    """Raise now (IndexError / KeyError, as `str.format` would at run time) when `fmt`
    refers to arguments that were not given, and (JAX's ValueError) when it leaves
    some unused."""
    fmt.format(*[_Anything()] * len(args), **{k: _Anything() for k in kwargs})
    _UnusedCheck(caller_location()).format(fmt, *args, **kwargs)


def print(fmt: str, *args, ordered=False, **kwargs):  # noqa: A001
    """`print(fmt.format(*args, **kwargs))` with the values the program computes."""
    if not isinstance(fmt, str):
        raise ArgumentTypeError(f"jax.debug.print needs a format string, got {fmt!r}")
    _check_format(fmt, args, kwargs)
    bind_debug_print(fmt, args, kwargs, ordered=ordered)


_logger = logging.getLogger("jax._src.debugging")  # JAX's logger name, for users' filters


def log(fmt: str, *args, ordered=False, **kwargs):
    """As `print`, but the message is logged at INFO on the `jax._src.debugging`
    logger, with the file and line of the call as the record's origin."""
    if not isinstance(fmt, str):
        raise ArgumentTypeError(f"jax.debug.log needs a format string, got {fmt!r}")
    _check_format(fmt, args, kwargs)
    loc = caller_location()
    record = _logger.makeRecord(_logger.name, logging.INFO, loc.file or "(unknown file)",
                                loc.line or 0, "", (), None)
    bind_debug_print(fmt, args, kwargs, ordered=ordered, logging_record=record)


class DebugEffect:
    """The effect of a debug callback (`print`, `callback`, `breakpoint`): it must run,
    so dead-code elimination keeps it, but in no particular order."""

    def __str__(self):
        return "Debug"


class OrderedDebugEffect:
    """The effect of an `ordered=True` debug callback: it runs in program order with the
    other ordered ones."""

    def __str__(self):
        return "OrderedDebug"


def _user_frame():
    """The innermost frame outside astjax (converted user code counts as user code)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    pkgs = tuple(os.path.join(here, d) + os.sep for d in ("astjax", "transforms", "codegen"))
    f = sys._getframe(2)
    while f is not None and f.f_code not in USER_CODE and f.f_code.co_filename.startswith(pkgs):
        f = f.f_back
    return f


def breakpoint(*, backend=None, filter_frames=True, num_frames=None, ordered=False,  # noqa: A001
               token=None, **kwargs):
    """Stop in a `pdb` session when the program reaches this point; the caller's
    variables hold their run-time values there (`p x`, `c` to continue). Staged
    values are passed out of the program as a debug callback's arguments, so it works
    under `jit`, `vmap` (once per example) and in loops. `stdin=`/`stdout=` choose the
    session's streams; with `token=` (a pytree) the breakpoint runs once `token` is
    computed and `token` is returned."""
    del filter_frames, num_frames
    if backend not in (None, "cli"):
        raise ArgumentValueError(f"Debugger backend {backend!r} is not available: astjax "
                                 "has the 'cli' debugger (pdb)")
    if token is not None and ordered:
        raise ValueError("`ordered` and `token` are mutually exclusive arguments.")
    frame = _user_frame()
    env = {} if frame is None else {k: v for k, v in frame.f_locals.items()
                                    if not k.startswith("ag__")}
    names = [k for k, v in env.items() if isinstance(v, (core.Tracer, core.Array))]
    static = {k: v for k, v in env.items() if k not in names}
    glob = {} if frame is None else dict(frame.f_globals)

    def session(*values):
        import pdb
        where = dict(static, **dict(zip(names, values)))
        pdb.Pdb(stdin=kwargs.get("stdin"), stdout=kwargs.get("stdout")).run(
            "pass", glob, where)
    callback(session, *[env[k] for k in names], ordered=ordered)
    return token


def inspect_array_sharding(value, *, callback):  # noqa: F811 -- the argument's JAX name
    """Call `callback(sharding)` with the sharding of each array leaf of `value`: now
    for a device array; while staging, the sharding the staged value's type carries
    (a single-device program: the default device's)."""
    for leaf in tree_util.tree_leaves(value):
        if not isinstance(leaf, core.Tracer):
            callback(leaf.sharding)
            continue
        typed = getattr(core.get_aval(leaf), "sharding", None)
        mesh = getattr(typed, "mesh", None)
        if mesh is None or not mesh.axis_names:
            concrete = _sh.get_mesh()
            if concrete.axis_names and concrete.size == 1:
                # one device: whatever XLA chooses is the replicated layout on it
                callback(_sh.NamedSharding(concrete, _sh.PartitionSpec()))
                continue
            if concrete.axis_names:
                raise ArgumentValueError(
                    "inspect_array_sharding on a staged value under a mesh: the sharding "
                    "XLA chooses is not known while staging", loc=caller_location(),
                    hint="inspect the result of the jitted function, or give the value an "
                         "explicit sharding (jax.sharding.reshard)")
            callback(_sh.SingleDeviceSharding(runtime.default_device()))
        else:
            concrete = _sh.get_mesh()
            callback(_sh.NamedSharding(concrete if concrete.axis_names else mesh,
                                       typed.spec))


def _blocks(starts_stops):
    """Sorted distinct (start, stop) pairs of one array axis."""
    return sorted(set(starts_stops))


def _span(index, size):
    start, stop, _ = index.indices(size)
    return start, stop


def visualize_sharding(shape, sharding, *, use_color=True, scale=1.0, min_width=9,
                       max_width=80, color_map=None):
    """Print a grid of `shape` (rank 1 or 2) whose cells are the blocks of `sharding`,
    each labelled with the devices holding it (JAX's `jax.debug.visualize_sharding`)."""
    del use_color, color_map
    try:
        import rich.box
        import rich.console
        import rich.table
    except ImportError as e:
        raise ValueError("`visualize_sharding` requires `rich` to be installed.") from e
    shape = tuple(shape)
    if len(shape) not in (1, 2):
        raise ValueError("`visualize_sharding` only works for shapes with 1 and 2 "
                         f"dimensions. Got shape {shape}.")
    full = shape if len(shape) == 2 else (1,) + shape
    owners: dict = {}
    for device, index in sharding.devices_indices_map(shape).items():
        index = tuple(index) if len(shape) == 2 else (slice(None),) + tuple(index)
        block = tuple(_span(i, n) for i, n in zip(index, full))
        owners.setdefault(block, []).append(device)
    rows = _blocks(b[0] for b in owners)
    cols = _blocks(b[1] for b in owners)
    width = max(min_width, min(max_width, int(max_width * scale)))
    table = rich.table.Table(show_header=False, show_lines=True, padding=0,
                             box=rich.box.SQUARE, highlight=False)
    for _ in cols:
        table.add_column(justify="center", vertical="middle",
                         width=max(min_width, width // max(1, len(cols))))
    for r in rows:
        cells = []
        for c in cols:
            devices = sorted(owners.get((r, c), []), key=lambda d: d.id)
            platform = devices[0].platform.upper() if devices else ""
            cells.append(f"{platform} {','.join(str(d.id) for d in devices)}".strip())
        table.add_row(*cells)
    rich.console.Console(width=max_width + 8).print(table)


def visualize_array_sharding(arr, **kwargs):
    """`visualize_sharding(arr.shape, arr.sharding)`."""
    return visualize_sharding(arr.shape, arr.sharding, **kwargs)
