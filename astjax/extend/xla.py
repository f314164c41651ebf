"""`astjax.extend.xla` (JAX's `jax.extend.xla`): custom XLA compiler passes over the
HLO module, at a stage of XLA's pipeline (`PipelineStage`).

A registered callback receives the module as a serialized `HloModuleProto` (bytes)
while XLA compiles, and returns changed bytes or None (unchanged). astjax compiles
through jaxlib's in-process CPU compiler, the one jaxlib's `register_xla_transform`
hooks, so a pass registered here runs on every program astjax compiles after it
(`jit`, eager operations, `.lower(...).compile()`); one already compiled and cached is
not compiled again, as in JAX. On a plugin backend (CUDA) the pass goes through the
PJRT C API of astjax's client."""
from __future__ import annotations

import enum
from collections.abc import Callable, Sequence

from jaxlib import _xla

from ..codegen import runtime
from ..errors import ArgumentTypeError

__all__ = ["PipelineStage", "register_hlo_module_transformation",
           "clear_hlo_module_transformation"]


class PipelineStage(enum.Enum):
    """Where in XLA's pipeline a registered pass runs."""
    PRE_SCHEDULER = 0
    POST_SCHEDULER = 1


def _stage_and_platforms(stage, platforms):
    """The stage's number and the platforms a call names (None: this process's
    platform and the CPU compiler)."""
    if not isinstance(stage, PipelineStage):
        raise ArgumentTypeError(f"stage must be a PipelineStage enum, got {type(stage)}",
                                hint="pass astjax.extend.xla.PipelineStage.PRE_SCHEDULER "
                                     "or .POST_SCHEDULER")
    if platforms is None:
        names = ["cpu", runtime.client().platform]
    elif isinstance(platforms, str):
        names = [platforms]
    else:
        names = list(platforms)
    return stage.value, list(dict.fromkeys(names))


def register_hlo_module_transformation(callback: Callable[[bytes], bytes | None], *,
                                       name: str,
                                       stage: PipelineStage = PipelineStage.PRE_SCHEDULER,
                                       platforms: Sequence[str] | str | None = None) -> None:
    """Run `callback(serialized HloModuleProto) -> bytes | None` as the compiler pass
    `name` at `stage` of every later compilation on `platforms` (None: all of this
    process's). Passes registered at one stage run in registration order."""
    stage_no, names = _stage_and_platforms(stage, platforms)
    if "cpu" in names:
        _xla.register_xla_transform(name, stage_no, callback)
    client = runtime.client()
    if client.platform != "cpu" and client.platform in names:
        _xla.register_xla_transform_c_api(client, name, stage_no, callback)


def clear_hlo_module_transformation(name: str,
                                    stage: PipelineStage = PipelineStage.PRE_SCHEDULER,
                                    platforms: Sequence[str] | str | None = None) -> bool:
    """Remove the pass `name` registered at `stage`; True if one was found."""
    stage_no, names = _stage_and_platforms(stage, platforms)
    cleared = False
    if "cpu" in names:
        cleared |= bool(_xla.clear_xla_transform(name, stage_no))
    client = runtime.client()
    if client.platform != "cpu" and client.platform in names:
        cleared |= bool(_xla.clear_xla_transform_c_api(client, name, stage_no))
    return cleared
