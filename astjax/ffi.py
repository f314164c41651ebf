"""`astjax.ffi` (JAX's `jax.ffi`): calling native kernels registered with XLA's typed
foreign-function interface.

- `register_ffi_target(name, fn, platform, api_version)` hands a kernel (a PyCapsule
  of its handler, or a dict of per-stage capsules) to XLA through jaxlib's
  `xla_client.register_custom_call_target`, as JAX does; `pycapsule` wraps a `ctypes`
  function pointer into one; `include_dir()` is where jaxlib's `xla/ffi/api/ffi.h` lives
  (to compile a kernel against).
- `ffi_call(target_name, result_shape_dtypes, ...)` returns a function of arrays whose
  keyword arguments are the kernel's attributes; each call is one equation of the
  `ffi_call` primitive (astjax/primitives/ffi_call.py: abstract evaluation from
  `result_shape_dtypes`, batching by `vmap_method`, no derivative, one
  `stablehlo.custom_call` when lowered). It works eagerly, under `jit`, `vmap` and
  inside control flow.
- `ffi_lowering` / `build_ffi_lowering_function` give a lowering rule calling a target,
  written with jaxlib's MLIR builders, for a primitive of the user's own
  (`mlir.register_lowering(p, ffi.ffi_lowering("target"))`; run by
  codegen/mlir_builders.py).

Layouts: `ffi_call` takes them major-to-minor (as `Layout.major_to_minor`), the
lowering rules minor-to-major (XLA's order); None means row-major.

Tokens: `core.abstract_token` among `result_shape_dtypes` declares a token result, and
a token (from `lax.create_token`, `lax.after_all` or another call) may be an operand;
a kernel reading a token runs after the call that returned it. An eager call with
tokens runs as one compiled program holding them (`_eager_with_tokens`), returning
host `Token`s. A kernel's error status when it runs is a located `FfiKernelError`
(codegen/xla_errors.py).
"""
from __future__ import annotations

import ctypes
import functools
import os
from collections.abc import Sequence
from typing import Any

import jaxlib
import numpy as np
from jaxlib import xla_client

from . import core
from .api import jit
from .codegen.mlir_builders import aval_to_ir_type, custom_call, ir_attribute
from .errors import ArgumentValueError, JAXTypeError, JAXValueError
from .primitives.ffi_call import (VMAP_METHODS, FrozenDict, HashableArray, Token,
                                  create_token_p, ffi_call_p, staged_token)
from .primitives.lapack import register_targets

__all__ = ["ffi_call", "ffi_lowering", "build_ffi_lowering_function", "register_ffi_target",
           "register_ffi_type_id", "register_ffi_type",
           "register_ffi_target_as_batch_partitionable", "pycapsule", "include_dir"]


def register_ffi_target(name: str, fn: Any, platform: str = "cpu", api_version: int = 1,
                        **kwargs: Any) -> None:
    """Register FFI kernel `fn` (a PyCapsule of its handler, or a dict mapping stage
    names such as "execute" to capsules) as target `name` on `platform`.
    `api_version`: 1 for the typed FFI, 0 for the older custom-call API; other keywords
    (`traits=`) go to jaxlib's `register_custom_call_target`."""
    return xla_client.register_custom_call_target(name, fn, platform, api_version, **kwargs)


def register_ffi_type_id(name: str, obj: Any, platform: str = "cpu") -> None:
    """Removed from the FFI by jaxlib 0.8 (version 381): always JAX's ValueError; use
    `register_ffi_type`."""
    raise JAXValueError("register_ffi_type_id is not supported after jaxlib version 381.")


def register_ffi_type(name: str, type_registration: dict, platform: str = "cpu") -> None:
    """Register a user type for FFI kernels: `type_registration` holds `type_id` (a
    PyCapsule of its `XLA_FFI_TypeId`) and optionally `type_info`."""
    return xla_client.register_custom_type(name, type_registration, platform=platform)


def register_ffi_target_as_batch_partitionable(name: str) -> None:
    """Tell XLA's partitioner that target `name` may be split along its batch axes."""
    xla_client.register_custom_call_as_batch_partitionable(name)


def pycapsule(funcptr) -> Any:
    """A PyCapsule holding the address of `funcptr` (a function loaded with `ctypes`),
    as `register_ffi_target` takes kernels."""
    destructor = ctypes.CFUNCTYPE(None, ctypes.py_object)
    make = ctypes.pythonapi.PyCapsule_New
    make.restype = ctypes.py_object
    make.argtypes = (ctypes.c_void_p, ctypes.c_char_p, destructor)
    return make(ctypes.cast(funcptr, ctypes.c_void_p), None, destructor(0))


def include_dir() -> str:
    """The directory of the C++ headers jaxlib ships (`xla/ffi/api/ffi.h`)."""
    root = jaxlib.__file__ and os.path.dirname(os.path.abspath(jaxlib.__file__))
    return os.path.join(root or list(jaxlib.__path__)[0], "include")


# ---------------------------------------------------------------- layouts


def _minor_to_major(aval, layout, major_to_minor):
    """One layout as the custom call takes it (minor-to-major); None: row-major."""
    if layout is None:
        return tuple(reversed(range(len(aval.shape))))
    if hasattr(layout, "major_to_minor"):   # a jax.experimental.layout.Layout
        if getattr(layout, "_tiling", None) is not None:
            raise JAXValueError("The FFI does not support layouts with tiling")
        return tuple(layout.major_to_minor)[::-1]
    return tuple(layout)[::-1] if major_to_minor else tuple(layout)


def _layouts(avals, layouts, major_to_minor, what, count_what):
    if layouts is None:
        return tuple(_minor_to_major(a, None, False) for a in avals)
    if len(layouts) != len(avals):
        raise ArgumentValueError(f"The number of {count_what} ({len(avals)}) must equal the "
                                 f"number of {what} layouts ({len(layouts)}).")
    return tuple(_minor_to_major(a, l, major_to_minor) for a, l in zip(avals, layouts))


# ---------------------------------------------------------------- ffi_call


def _result_avals(results):
    avals = []
    for i, r in enumerate(results):
        if isinstance(r, core.TokenAval):   # `core.abstract_token`: a token result
            avals.append(core.abstract_token)
            continue
        if not hasattr(r, "shape") or not hasattr(r, "dtype"):
            raise ArgumentValueError("All elements of result_shape_dtypes must have 'shape' "
                                     f"and 'dtype' attributes. Got {r} at position {i}.")
        avals.append(core.ShapedArray(tuple(r.shape), r.dtype))
    return tuple(avals)


def _hashable_attributes(kwargs):
    """The attributes as sorted (name, value) pairs of hashable values."""
    out = []
    for k, v in sorted(kwargs.items()):
        if isinstance(v, np.ndarray):
            v = HashableArray(v)
        elif isinstance(v, dict):
            v = FrozenDict(v)
        else:
            try:
                hash(v)
            except TypeError:
                raise JAXTypeError(f"Non-hashable keyword argument to ffi_call {k}: {v}") \
                    from None
        out.append((k, v))
    return tuple(out)


def _aliases(mapping, in_avals, result_avals, in_layouts, out_layouts):
    pairs = []
    for i, o in sorted((mapping or {}).items()):
        i, o = int(i), int(o)
        if i >= len(in_avals):
            raise ArgumentValueError(f"input_output_aliases contains the mapping '{i}:{o}' with "
                                     f"input index {i} outside the range [0, {len(in_avals)}).")
        if o >= len(result_avals):
            raise ArgumentValueError(
                f"input_output_aliases contains the mapping '{i}:{o}' with output index {o} "
                f"outside the range [0, {len(result_avals)}).")
        a, b = in_avals[i], result_avals[o]
        if a.shape != b.shape or a.dtype != b.dtype:
            raise ArgumentValueError(
                f"input_output_aliases contains the mapping '{i}:{o}' referring to an input "
                f"with abstract value {a} and an output with a different abstract value {b}.")
        if in_layouts[i] != out_layouts[o]:
            raise ArgumentValueError(
                f"input_output_aliases contains the mapping '{i}:{o}' referring to an input "
                f"with layout {in_layouts[i]} and an output with a different layout "
                f"{out_layouts[o]}.")
        pairs.append((i, o))
    return tuple(pairs)


def ffi_call(target_name: str, result_shape_dtypes, *, has_side_effect: bool = False,
             vmap_method: str | None = None, input_layouts=None, output_layouts=None,
             input_output_aliases: dict | None = None, custom_call_api_version: int = 4,
             legacy_backend_config: str | None = None):
    """A function calling FFI target `target_name`: positional arguments are the
    kernel's operands, keyword arguments its attributes (scalars, strings, NumPy
    arrays, dicts). It returns one array per entry of `result_shape_dtypes` (objects
    with `shape` and `dtype`, e.g. `ShapeDtypeStruct`; a single one gives a single
    array). `has_side_effect`: keep the call even when its results are unused.
    `vmap_method` ('sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all',
    'legacy_vectorized'; None: `vmap` is an error) says how `vmap` batches the call.
    A result given as `core.abstract_token` is a token, and tokens may be operands
    (they order side-effecting kernels, see the module docstring).
    `input_layouts` / `output_layouts`: per operand / result, None (row-major), a
    `Layout`, or a major-to-minor axis order. `input_output_aliases`: {operand index:
    result index} written in place. `custom_call_api_version` below 4 runs a legacy
    custom call, configured by the string `legacy_backend_config`."""
    if vmap_method not in VMAP_METHODS + (None,):
        raise ArgumentValueError(
            f"vmap_method must be on of the allowed methods {list(VMAP_METHODS) + [None]}, "
            f"but got: {vmap_method}")
    multiple = isinstance(result_shape_dtypes, Sequence)
    result_avals = _result_avals(result_shape_dtypes if multiple else [result_shape_dtypes])
    out_layout_list = output_layouts if multiple else (output_layouts,)
    if custom_call_api_version >= 4 and legacy_backend_config is not None:
        raise ArgumentValueError("The use of the legacy_backend_config parameter requires "
                                 f"custom_call_api_version < 4; got {custom_call_api_version}.")

    def call(*args, **attributes):
        in_avals = [core.get_aval(x) for x in args]
        in_l = _layouts(in_avals, input_layouts, True, "input", "input arguments")
        out_l = _layouts(result_avals, out_layout_list, True, "output", "outputs")
        params = dict(
            result_avals=result_avals, vmap_method=vmap_method,
            target_name=target_name, has_side_effect=bool(has_side_effect),
            input_layouts=in_l, output_layouts=out_l,
            input_output_aliases=_aliases(input_output_aliases, in_avals, result_avals, in_l,
                                          out_l),
            custom_call_api_version=int(custom_call_api_version),
            legacy_backend_config=legacy_backend_config,
            attributes=_hashable_attributes(attributes))
        if core.current_builder() is not None:
            outs = ffi_call_p.bind(*map(staged_token, args), **params)
        elif any(isinstance(a, core.TokenAval) for a in (*in_avals, *result_avals)):
            outs = _eager_with_tokens(args, params)
        else:
            outs = ffi_call_p.bind(*args, **params)
        if not multiple:
            return outs[0]
        return tuple(outs) if isinstance(result_shape_dtypes, tuple) else list(outs)
    return call


def _eager_with_tokens(args, params):
    """An eager `ffi_call` with token operands or results: one compiled program whose
    tokens stay inside it (each operand token a fresh `create_token`: eager calls run
    in order anyway); host `Token`s stand for the token results."""
    is_token = tuple(isinstance(core.get_aval(a), core.TokenAval) for a in args)
    run = _token_program(is_token, tuple(sorted(params.items())))
    outs = iter(run(*(a for a, t in zip(args, is_token) if not t)))
    return [Token() if isinstance(r, core.TokenAval) else next(outs)
            for r in params["result_avals"]]


@functools.lru_cache(maxsize=256)
def _token_program(is_token, items):
    params = dict(items)

    def program(*arrays):
        it = iter(arrays)
        outs = ffi_call_p.bind(*(create_token_p.bind() if t else next(it) for t in is_token),
                               **params)
        return [o for o, r in zip(outs, params["result_avals"])
                if not isinstance(r, core.TokenAval)]
    return jit(core.raw(program))


# ---------------------------------------------------------------- builder rules


def build_ffi_lowering_function(call_target_name: str, *, operand_layouts=None,
                                result_layouts=None, backend_config=None,
                                skip_ffi_layout_processing: bool = False, **lowering_args):
    """A function `(ctx, *operands, **attributes) -> op` emitting the custom call of
    `call_target_name` with jaxlib's MLIR builders (`mlir.custom_call`): result types
    from `ctx.avals_out`, layouts minor-to-major (None: row-major; skipped with
    `skip_ffi_layout_processing`), the keyword attributes added to the dictionary
    `backend_config` (API version 4, the default) -- a string config needs an API
    version below 4 and no attributes. Other keywords (`has_side_effect`,
    `operand_output_aliases`, `api_version`, ...) go to `mlir.custom_call`."""
    def lowering_op(ctx, *operands, **params):
        kwargs = dict(lowering_args)
        kwargs.setdefault("api_version", 4)
        if ctx.platform == "cpu":
            register_targets()   # jaxlib's own CPU kernels, as JAX registers them
        if kwargs["api_version"] >= 4:
            if backend_config is not None and not isinstance(backend_config, dict):
                raise JAXValueError("When api_version > 4, backend_config must be a "
                                    "dictionary.")
            kwargs["backend_config"] = dict(backend_config or {}, **{
                k: ir_attribute(v) for k, v in params.items()})
        else:
            if params:
                raise JAXValueError(
                    "The use of ffi_call attributes requires a custom call API version of "
                    f"at least 4; got api_version={kwargs['api_version']}.")
            kwargs["backend_config"] = backend_config
        kwargs.setdefault("result_types", [aval_to_ir_type(a) for a in ctx.avals_out])
        if not skip_ffi_layout_processing:
            kwargs["operand_layouts"] = _layouts(ctx.avals_in, operand_layouts, False,
                                                 "operand", "operands")
            kwargs["result_layouts"] = _layouts(ctx.avals_out, result_layouts, False,
                                                "result", "results")
        return custom_call(call_target_name, operands=operands, **kwargs)
    return lowering_op


def ffi_lowering(call_target_name: str, *, operand_layouts=None, result_layouts=None,
                 backend_config=None, skip_ffi_layout_processing: bool = False,
                 **lowering_args):
    """A lowering rule (for `mlir.register_lowering`) calling FFI target
    `call_target_name`: the rule's keyword params become the kernel's attributes;
    arguments as `build_ffi_lowering_function`. Returns the call's results."""
    build = build_ffi_lowering_function(
        call_target_name, operand_layouts=operand_layouts, result_layouts=result_layouts,
        backend_config=backend_config, skip_ffi_layout_processing=skip_ffi_layout_processing,
        **lowering_args)

    def rule(ctx, *operands, **params):
        return build(ctx, *operands, **params).results
    return rule
