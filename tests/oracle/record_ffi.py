"""`jax.ffi` as JAX 0.10.2 runs it, on jaxlib's own CPU FFI targets (the LAPACK kernels
`lapack_spotrf_ffi`, `lapack_sgetrf_ffi`), and a recorder of JAX's outcomes (see README.md).

`SCENARIOS` maps a name to a function of the `jax` module (JAX, or astjax in the tests)
returning an array or a tuple of arrays, or raising. Recorded per scenario: the values
(with dtypes), or the exception's class (and its builtin bases) and message. Run with
JAX 0.10.2: `/work/jaxref/bin/python tests/oracle/record_ffi.py` writes ffi.json."""
import json
import sys
from pathlib import Path

import numpy as np

L = np.uint8(ord("L"))   # LAPACK's `uplo` character, as the kernels take it (ui8)
SPD = np.array([[4., 2., 0.4], [2., 5., 1.], [0.4, 1., 3.]], np.float32)
SPD2 = np.array([[9., 3., 1.], [3., 4., 0.5], [1., 0.5, 2.]], np.float32)
NOT_SPD = np.array([[1., 2., 0.], [2., 1., 0.], [0., 0., 1.]], np.float32)
GENERAL = np.array([[1., 4., 2.], [3., -1., 5.], [2., 2., 7.], [0.5, 1., -3.]], np.float32)
GENERAL2 = np.array([[0., 1., 2.], [4., 1., 0.], [1., 1., 1.], [2., -2., 6.]], np.float32)


def potrf(jax, n=3, **kw):
    """jaxlib's float32 Cholesky kernel: column-major matrix in, (factor, info) out."""
    S = jax.ShapeDtypeStruct
    return jax.ffi.ffi_call("lapack_spotrf_ffi",
                            (S((n, n), np.float32), S((), np.int32)),
                            input_layouts=[(1, 0)], output_layouts=[(1, 0), ()], **kw)


def getrf(jax, m=4, n=3, **kw):
    """jaxlib's float32 LU kernel: (LU, pivots, info), all as `lax.linalg.lu` lowers it."""
    S = jax.ShapeDtypeStruct
    return jax.ffi.ffi_call("lapack_sgetrf_ffi",
                            (S((m, n), np.float32), S((min(m, n),), np.int32),
                             S((), np.int32)),
                            input_layouts=[(1, 0)], output_layouts=[(1, 0), None, None],
                            **kw)


def _seq(jax, method):
    return jax.vmap(lambda a: potrf(jax, vmap_method=method)(a, uplo=L))(
        np.stack([SPD, NOT_SPD, SPD2]))


def _bcast_unbatched_operand(jax):
    # the matrix is unbatched; the batch comes from a shift added to it before the call
    def f(a, s):
        return potrf(jax, vmap_method="broadcast_all")(a + s, uplo=L)
    return jax.vmap(f, in_axes=(None, 0))(SPD, np.array([0., 1., 2.], np.float32))


def _getrf_jit_grad_free(jax):
    lu, piv, info = jax.jit(lambda a: getrf(jax, vmap_method="sequential")(a))(GENERAL)
    return lu * 2.0, piv, info


def _user_primitive(jax):
    """A primitive of the user's own, lowered by `ffi_lowering` (jaxlib's potrf)."""
    import importlib
    mlir = importlib.import_module(jax.__name__ + ".interpreters.mlir")
    p = importlib.import_module(jax.__name__ + ".extend.core").Primitive("my_cholesky")
    p.multiple_results = True
    p.def_abstract_eval(lambda a, **_: (a, jax.core.ShapedArray((), np.int32)))
    mlir.register_lowering(p, jax.ffi.ffi_lowering(
        "lapack_spotrf_ffi", operand_layouts=[(0, 1)], result_layouts=[(0, 1), ()]),
        platform="cpu")
    return jax.jit(lambda a: p.bind(a, uplo=L))(SPD)


SCENARIOS = {
    "potrf_eager": lambda jax: potrf(jax)(SPD, uplo=L),
    "potrf_jit": lambda jax: jax.jit(lambda a: potrf(jax)(a, uplo=L))(SPD),
    "potrf_python_int_attr": lambda jax: potrf(jax)(SPD2, uplo=76),
    "potrf_not_spd": lambda jax: potrf(jax)(NOT_SPD, uplo=L),
    "potrf_list_result": lambda jax: list(jax.ffi.ffi_call(
        "lapack_spotrf_ffi", [jax.ShapeDtypeStruct((3, 3), np.float32),
                              jax.ShapeDtypeStruct((), np.int32)],
        input_layouts=[(1, 0)], output_layouts=[(1, 0), ()])(SPD, uplo=L)),
    "potrf_vmap_sequential": lambda jax: _seq(jax, "sequential"),
    "potrf_vmap_sequential_unrolled": lambda jax: _seq(jax, "sequential_unrolled"),
    "potrf_vmap_broadcast_all": lambda jax: _seq(jax, "broadcast_all"),
    "potrf_vmap_expand_dims": lambda jax: _seq(jax, "expand_dims"),
    "potrf_vmap_legacy_vectorized": lambda jax: _seq(jax, "legacy_vectorized"),
    "potrf_vmap_broadcast_unbatched_operand": _bcast_unbatched_operand,
    "potrf_vmap_jit_sequential": lambda jax: jax.jit(jax.vmap(
        lambda a: potrf(jax, vmap_method="sequential")(a, uplo=L)))(np.stack([SPD2, SPD])),
    "getrf_eager": lambda jax: getrf(jax)(GENERAL),
    "getrf_jit": _getrf_jit_grad_free,
    "getrf_vmap_broadcast_all": lambda jax: jax.vmap(
        getrf(jax, vmap_method="broadcast_all"))(np.stack([GENERAL, GENERAL2])),
    "getrf_vmap_sequential": lambda jax: jax.vmap(
        getrf(jax, vmap_method="sequential"))(np.stack([GENERAL2, GENERAL])),
    "user_primitive_ffi_lowering": _user_primitive,
    # errors
    "bad_vmap_method": lambda jax: jax.ffi.ffi_call(
        "lapack_spotrf_ffi", jax.ShapeDtypeStruct((3, 3), np.float32), vmap_method="rows"),
    "vmap_without_method": lambda jax: jax.vmap(lambda a: potrf(jax)(a, uplo=L))(
        np.stack([SPD, SPD2])),
    "missing_target": lambda jax: jax.ffi.ffi_call(
        "astjax_no_such_target", jax.ShapeDtypeStruct((3,), np.float32))(SPD[0]),
    "missing_target_jit": lambda jax: jax.jit(lambda x: jax.ffi.ffi_call(
        "astjax_no_such_target", jax.ShapeDtypeStruct((3,), np.float32))(x))(SPD[0]),
    "string_attr_for_scalar": lambda jax: potrf(jax)(SPD, uplo="L"),
    "missing_attr": lambda jax: potrf(jax)(SPD),
    "unhashable_attr": lambda jax: potrf(jax)(SPD, uplo=[1, 2]),
    "grad": lambda jax: jax.grad(lambda a: potrf(jax)(a, uplo=L)[0].sum())(SPD),
    "jvp": lambda jax: jax.jvp(lambda a: potrf(jax)(a, uplo=L)[0], (SPD,), (SPD,)),
    "input_layouts_count": lambda jax: jax.ffi.ffi_call(
        "lapack_spotrf_ffi", jax.ShapeDtypeStruct((3, 3), np.float32),
        input_layouts=[(1, 0), (0,)])(SPD),
    "output_layouts_count": lambda jax: jax.ffi.ffi_call(
        "lapack_spotrf_ffi", [jax.ShapeDtypeStruct((3, 3), np.float32)],
        output_layouts=[(1, 0), ()])(SPD),
    "alias_out_of_range": lambda jax: jax.ffi.ffi_call(
        "lapack_spotrf_ffi", jax.ShapeDtypeStruct((3, 3), np.float32),
        input_output_aliases={0: 1})(SPD),
    "alias_mismatched_aval": lambda jax: jax.ffi.ffi_call(
        "lapack_spotrf_ffi", jax.ShapeDtypeStruct((3, 3), np.float64),
        input_output_aliases={0: 0})(SPD),
    "legacy_config_with_v4": lambda jax: jax.ffi.ffi_call(
        "lapack_spotrf_ffi", jax.ShapeDtypeStruct((3, 3), np.float32),
        legacy_backend_config="abc"),
    "result_without_shape": lambda jax: jax.ffi.ffi_call("lapack_spotrf_ffi", [3.0]),
    "register_ffi_type_id": lambda jax: jax.ffi.register_ffi_type_id("t", object()),
}


def outcome(thunk):
    """{"values": [[dtype, shape, flat list]...]} or {"error": class, "bases", "message"}."""
    try:
        out = thunk()
    except Exception as e:   # noqa: BLE001 -- the class is what is recorded
        bases = [c.__name__ for c in type(e).__mro__
                 if c.__module__ == "builtins" and c not in (object, BaseException, Exception)]
        return {"error": type(e).__name__, "bases": bases, "message": str(e)}
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    return {"tuple": isinstance(out, tuple),
            "values": [[str(np.asarray(o).dtype), list(np.shape(o)),
                        np.asarray(o).ravel().tolist()] for o in outs]}


def record(path):
    import jax
    from jaxlib.cpu import _lapack
    _lapack.initialize()   # JAX does this the first time its own linalg lowers
    out = {name: outcome(lambda: fn(jax)) for name, fn in SCENARIOS.items()}
    Path(path).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("ffi.json"))
