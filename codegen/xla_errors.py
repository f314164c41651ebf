"""XLA's errors about a program, as located astjax errors.

XLA reports failures as jaxlib's `JaxRuntimeError` whose text names no line of the
user's program. The lowered module (`stablehlo.lower_module`) remembers which equation
wrote each op (`text.origins`), and every equation keeps its `source_info`, so:

- compiling: an MLIR parse or verify error is astjax's own bug, an `InternalError`
  located at the equation that wrote the offending line; XLA's NOT_FOUND for an FFI
  target no kernel is registered for is an `FfiTargetError` located at the first
  `ffi_call` of that target (`compile_failure`);
- running: an FFI kernel that returns an error status stops the program; the error is
  an `FfiKernelError` (JaxRuntimeError, and ValueError for INVALID_ARGUMENT) with
  XLA's text, located at the call that ran the kernel (`run_failure`). XLA refusing
  the operands before running (a buffer on another device, a donated one) is not a
  run of the program: the dispatch paths may retry those elsewhere, but never a
  program that ran -- that would run its kernels' side effects twice. A host callback
  that raised (`io_callback`, `pure_callback`) ran too: its error is raised as XLA
  gave it, never retried (`raise_if_ran`).

Which of several FFI calls of one program failed is not in XLA's text: the error is
located at the first, and names every call site.
"""
from __future__ import annotations

import re

from astjax.errors import (FfiKernelArgumentError, FfiKernelError, FfiTargetError,
                           InternalError, RuntimeDTypeError, caller_location)

from . import stablehlo

__all__ = ["compile_failure", "missing_ffi_target", "unrunnable_type", "run_failure",
           "raise_if_ran"]

_NO_FFI_HANDLER = re.compile(r"No FFI handler registered for (\S+)")
_MLIR_DIAGNOSTIC = re.compile(r"-:(\d+):\d+: error: ([^\n]*)")
# a custom call of the lowered text (astjax's generic form, or a builder rule's)
_CUSTOM_CALL = re.compile(r'stablehlo\.custom_call"?\(?.*?call_target_name = "([^"]+)"'
                          r'|stablehlo\.custom_call @([\w.$-]+)')
# targets that are not user kernels: host callbacks report their own errors
_NOT_KERNELS = re.compile(r"xla_ffi_python_|xla_python_|Sharding$|SPMD")
# XLA's status code, which starts every error of a run (jaxlib's C++ dispatch raises
# some as ValueError)
_STATUS = re.compile(r"[A-Z][A-Z_]+: ")
# what XLA says when it refuses a call's operands, before anything runs
_REFUSED = re.compile(r"passed to Execute\(\)|deleted or donated|has been deleted|"
                      r"Execution supplied|CpuCallback error")
# a host callback raised while the program ran
_CALLBACK_RAISED = re.compile(r"[A-Za-z]*Callback error")


def missing_ffi_target(text, message: str):
    """XLA's error `message` compiling `text` as a located `FfiTargetError` when it
    names an FFI target no kernel is registered for (at the line of the first
    `ffi_call` of that target; else where the user called the API); otherwise None."""
    m = _NO_FFI_HANDLER.search(message)
    if m is None:
        return None
    calls = [eqn for _, _, eqn in getattr(text, "origins", ())
             if eqn.params.get("target_name") == m.group(1)]
    src = getattr(calls[0], "source_info", None) if calls else None
    return FfiTargetError(message, loc=src if src is not None and src.file else None)


def unrunnable_type(text, message: str, platform: str):
    """XLA's error `message` compiling `text` as a located `RuntimeDTypeError` when the
    program holds an element type the backend lacks (float6 on CPU: rejected at a
    parameter or result, or an LLVM failure inside a fusion), at the first equation
    that makes one -- JAX's JaxRuntimeError; otherwise None."""
    names = sorted(stablehlo.elt_type(d) for d in stablehlo.NO_RUNTIME_TYPES)
    if not any(n in str(text) for n in names):
        return None
    made = [i for i, ln in enumerate(str(text).split("\n"))
            if " = " in ln and any(n in ln.split(" = ", 1)[1] for n in names)]
    eqn = stablehlo.origin_of(text, made[0] + 1) if made else None
    src = getattr(eqn, "source_info", None)
    return RuntimeDTypeError(f"{message.strip().splitlines()[0]}: XLA's {platform} backend has "
                             f"no {' or '.join(names)} element type (as under JAX)",
                             loc=src if src is not None and src.file else None)


def compile_failure(text, error, platform: str):
    """XLA's `error` compiling `text` for `platform` as the located error to raise
    instead, or None (raise `error` itself)."""
    located = missing_ffi_target(text, str(error))
    if located is not None:
        return located
    m = _MLIR_DIAGNOSTIC.search(str(error))
    if m is None:  # e.g. a float6 program fails without an MLIR diagnostic
        return unrunnable_type(text, str(error), platform)
    eqn = stablehlo.origin_of(text, int(m.group(1)))
    what = f"`{eqn.primitive.name}`" if eqn is not None else "the program"
    src = getattr(eqn, "source_info", None)
    return InternalError(f"XLA rejected the StableHLO astjax made for {what}: "
                         f"{m.group(2).strip()}",
                         loc=src if src is not None and src.file else None)


def _kernel_calls(text):
    """(target, source_info or None) of each custom call of a user kernel in `text`,
    in the order of the text."""
    calls = []
    for k, line in enumerate(str(text).split("\n"), 1):
        if "custom_call" not in line:
            continue
        m = _CUSTOM_CALL.search(line)
        target = m and (m.group(1) or m.group(2))
        if not target or _NOT_KERNELS.match(target):
            continue
        eqn = stablehlo.origin_of(text, k)
        src = getattr(eqn, "source_info", None)
        calls.append((target, src if src is not None and src.file else None))
    return calls


def run_failure(error, text):
    """The located error to raise for `error`, raised by XLA running the program
    `text`: `error` itself when it is located already; an `FfiKernelError` when the
    program calls FFI kernels and ran (one of them returned an error status); None
    otherwise (XLA refused the operands, or no kernel can have failed)."""
    if isinstance(error, FfiKernelError):
        return error
    message = str(error)
    if not _STATUS.match(message) or _REFUSED.search(message):
        return None
    calls = _kernel_calls(text)
    if not calls:
        return None
    located = [c for c in calls if c[1] is not None]
    target, loc = located[0] if located else (calls[0][0], None)
    sites = sorted({f"`{t}` ({s.file}:{s.line})" if s else f"`{t}`" for t, s in calls})
    extra = (f"returned by the FFI kernel `{target}`" if len(sites) == 1 else
             "returned by one of the FFI kernels the program calls: " + ", ".join(sites))
    cls = FfiKernelArgumentError if message.startswith("INVALID_ARGUMENT") else FfiKernelError
    return cls(message, extra=extra, loc=loc if loc is not None else caller_location())


def raise_if_ran(error, text) -> None:
    """Raise `run_failure(error, text)` if there is one (a dispatch path's except
    clause calls this before retrying the call elsewhere); raise `error` itself when a
    host callback raised it (the program ran: a retry would call the callback again)."""
    located = run_failure(error, text)
    if located is not None:
        raise located.with_traceback(None) from None
    if _STATUS.match(str(error)) and _CALLBACK_RAISED.search(str(error)):
        raise error
