"""`jax.experimental.mesh_utils`: device arrays for `jax.sharding.Mesh`.

On CPUs and GPUs (what astjax runs on) a good mesh is the device list in order
(GPUs sorted by id), reshaped; `create_hybrid_device_mesh` lays one such mesh per
process (the "granule") out over the slower, between-process axes.
"""
from __future__ import annotations

import math

import numpy as np

import astjax as _astjax

__all__ = ["create_device_mesh", "create_hybrid_device_mesh"]


def _shape(mesh_shape, what):
    try:
        shape = tuple(int(s) for s in mesh_shape)
    except (TypeError, ValueError):
        raise ValueError(f"`{what}` passed to `create_device_mesh` should be a sequence of "
                         f"ints. Got {mesh_shape}") from None
    return shape


def create_device_mesh(mesh_shape, devices=None, *, contiguous_submeshes=False,
                       allow_split_physical_axes=False):
    """An ndarray of `mesh_shape` holding `devices` (default: every device)."""
    devices = list(_astjax.devices() if devices is None else devices)
    shape = _shape(mesh_shape, "mesh_shape")
    if math.prod(shape) != len(devices):
        raise ValueError(f"Number of devices {len(devices)} must equal the product of "
                         f"mesh_shape {shape}")
    if devices and devices[-1].platform in ("gpu", "cuda"):
        devices = sorted(devices, key=lambda d: d.id)
    out = np.empty(len(devices), dtype=object)
    out[:] = devices
    return out.reshape(shape)


def create_hybrid_device_mesh(mesh_shape, dcn_mesh_shape, devices=None, *,
                              process_is_granule=False, should_sort_granules_by_key=True,
                              allow_split_physical_axes=False):
    """A mesh of shape `mesh_shape * dcn_mesh_shape` (elementwise): one
    `mesh_shape` block per process, the blocks arranged by `dcn_mesh_shape`."""
    devices = list(_astjax.devices() if devices is None else devices)
    inner = _shape(mesh_shape, "mesh_shape")
    outer = _shape(dcn_mesh_shape, "dcn_mesh_shape")
    if len(inner) != len(outer):
        raise ValueError(f"mesh_shape {inner} and dcn_mesh_shape {outer} must have the same "
                         "rank")
    granules: dict = {}
    for d in devices:
        granules.setdefault(d.process_index, []).append(d)
    keys = sorted(granules) if should_sort_granules_by_key else list(granules)
    if len(keys) != math.prod(outer):
        raise ValueError(f"dcn_mesh_shape {outer} needs {math.prod(outer)} processes, "
                         f"found {len(keys)}")
    blocks = np.empty(len(keys), dtype=object)
    blocks[:] = [create_device_mesh(inner, granules[k]) for k in keys]
    grid = blocks.reshape(outer)
    out = np.empty(tuple(i * o for i, o in zip(inner, outer)), dtype=object)
    for pos in np.ndindex(*outer):
        sl = tuple(slice(p * i, (p + 1) * i) for p, i in zip(pos, inner))
        out[sl] = grid[pos]
    return out
