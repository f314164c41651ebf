"""`astjax.debug` (JAX's `jax.debug`): look at values while a staged program runs —
`print` and `callback`, called with the run-time values (also under `vmap`, once per
example, and under `grad`, with the primal values) -- and `visualize_array_sharding` /
`visualize_sharding`, which draw which device holds which block of an array (with
`rich`, as JAX does)."""
from __future__ import annotations

import numpy as np

from . import core
from .callbacks_api import flat_host_call
from .errors import ArgumentTypeError
from .primitives.callbacks import debug_callback_p

__all__ = ["print", "callback", "visualize_array_sharding", "visualize_sharding"]

_print = print


def callback(callback, *args, ordered=False, partitioned=False, **kwargs):
    """Call `callback(*args, **kwargs)` on the NumPy values of its array arguments
    when the program runs; it returns nothing."""
    if not callable(callback):
        raise ArgumentTypeError(f"jax.debug.callback needs a callable, got {callback!r}")
    leaves, host = flat_host_call(callback, args, kwargs, [], None)
    if core.current_builder() is None:
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


def _check_format(fmt, args, kwargs):
    """Raise now (IndexError / KeyError, as `str.format` would at run time) when `fmt`
    refers to arguments that were not given."""
    fmt.format(*[_Anything()] * len(args), **{k: _Anything() for k in kwargs})


def print(fmt: str, *args, ordered=False, **kwargs):  # noqa: A001
    """`print(fmt.format(*args, **kwargs))` with the values the program computes."""
    if not isinstance(fmt, str):
        raise ArgumentTypeError(f"jax.debug.print needs a format string, got {fmt!r}")
    _check_format(fmt, args, kwargs)
    callback(lambda *a, **k: _print(fmt.format(*a, **k)), *args, ordered=ordered, **kwargs)


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
