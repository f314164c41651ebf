"""Platform names JAX 0.10.2 does not know ('tpu2', 'foo', 'CPU'), stored for
tests/test_platform_names.py: JAX takes any name, verbatim (no lower-casing), in
`lax.platform_dependent(..., foo=...)`, `lower(lowering_platforms=...)` and
`export(platforms=...)`; a name without a branch (and no default) fails when the
choice is lowered, and an export only for other platforms fails when called.

Run with JAX 0.10.2: `/work/jaxref/bin/python tests/oracle/record_platform_names.py`
writes platform_names.json: per case `{"value": ...}` (a list, a tuple of platform
names or a bool) or `{"error": class name, "message": ...}`.
"""
import json
import re
from pathlib import Path

import numpy as np

X = np.arange(3, dtype=np.float32) / 4


def functions(lax):
    """name -> function of one float32[3] argument."""
    return {
        # branches named by platforms JAX does not know, a default for the rest
        "three_way": lambda x: lax.platform_dependent(
            x, tpu2=lambda x: x * 2.0, cpu=lambda x: x * 3.0, default=lambda x: x - 1.0),
        # no branch for cpu and no default
        "foo_only": lambda x: lax.platform_dependent(x, foo=lambda x: x * 2.0),
        "plain": lambda x: x * 2.0 + 1.0,
    }


def cases(jax, lax, export):
    """name -> thunk; each gives a JSON-able value or raises."""
    fns = functions(lax)

    def lowered(name, platforms):
        return jax.jit(fns[name]).trace(X).lower(lowering_platforms=platforms)

    def run_lowered(name, platforms):
        # compiled for this machine's CPU whatever the lowering platform (as JAX does):
        # the value shows which branch the lowering platform picked
        return np.asarray(lowered(name, platforms).compile()(X)).tolist()

    def exported(name, platforms):
        return export.export(jax.jit(fns[name]), platforms=platforms)(X)

    out = {
        "eager_no_branch": lambda: np.asarray(fns["foo_only"](X)).tolist(),
        "jit_no_branch": lambda: np.asarray(jax.jit(fns["foo_only"])(X)).tolist(),
        "eager_default": lambda: np.asarray(fns["three_way"](X)).tolist(),
        "export_cpu_no_branch": lambda: list(exported("foo_only", ("cpu",)).platforms),
        "export_foo_no_default": lambda: list(exported("foo_only", ("foo",)).platforms),
        "export_kept_verbatim": lambda: list(exported("three_way", ("TPU2", "CPU")).platforms),
        "export_tpu2_call": lambda: exported("three_way", ("tpu2",)).call(X).tolist(),
        "export_cpu_tpu2_call": lambda: np.asarray(
            exported("three_way", ("cpu", "tpu2")).call(X)).tolist(),
        # platform-independent programs lower alike for any name
        "plain_text_alike": lambda: all(
            lowered("plain", p).as_text() == jax.jit(fns["plain"]).trace(X).lower().as_text()
            for p in [("tpu2",), ("CPU",), ("foo",)]),
    }
    # the module's name (JAX's: `jit(<lambda>)` -> `jit__lambda`) in these modules too
    out["module_name_export"] = lambda: _module_name(
        exported("three_way", ("cpu", "tpu2")).mlir_module())
    out["module_name_lowered"] = lambda: _module_name(
        lowered("three_way", ("cpu", "tpu2")).as_text())
    out["module_name_quoted"] = lambda: _module_name(
        jax.jit(_dashed).trace(X).lower().as_text())
    out["module_name_unicode"] = lambda: _module_name(
        jax.jit(_accented).trace(X).lower(lowering_platforms=("cpu", "tpu2")).as_text())
    # LAPACK-backed primitives: JAX's generic lowering for a platform without kernels
    out["inv_lowers_for_tpu2"] = lambda: "stablehlo" in jax.jit(jax.numpy.linalg.inv).trace(
        np.eye(2, dtype=np.float32)).lower(lowering_platforms=("tpu2",)).as_text()
    for platforms in [("tpu2",), ("CPU",), ("cpu",), ("foo",)]:
        out["run_lowered_" + "_".join(platforms)] = (
            lambda p=platforms: run_lowered("three_way", p))
    return out


def _module_name(text):
    return re.search(r"module @(\S+) ", text).group(1)


def _dashed(x):
    return x + 1.0


def _accented(x):
    return x - 1.0


# names that are no MLIR identifier: JAX's printer quotes (and escapes) them
_dashed.__name__ = _dashed.__qualname__ = "scatter-sub.6"
_accented.__name__ = _accented.__qualname__ = "\u00e9t\u00e9"


def record(thunk):
    try:
        return {"value": thunk()}
    except Exception as e:   # noqa: BLE001  (the error is the recorded result)
        return {"error": type(e).__name__, "message": str(e)}


def main():
    import jax
    from jax import export, lax
    assert jax.__version__ == "0.10.2", jax.__version__
    out = {name: record(thunk) for name, thunk in cases(jax, lax, export).items()}
    Path(__file__).with_name("platform_names.json").write_text(
        json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
