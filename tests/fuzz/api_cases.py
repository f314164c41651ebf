"""Hand-written API calls in the fuzzer's call format (`api_gen.generate`'s dicts), for
differences the API fuzzer found whose seeds were not kept, or whose edges a random draw
rarely hits. `tests/oracle/record_api_fuzz.py` records JAX 0.10.2's results for them
beside the seeded calls; `tests/test_api_fuzz.py` replays them."""
from __future__ import annotations

import numpy as np

try:
    import ml_dtypes
except ImportError:  # pragma: no cover - jaxlib always brings ml_dtypes
    ml_dtypes = None


def arr(v, dtype):
    """An array ARG of `v` as `dtype`."""
    a = np.asarray(v, np.float32 if dtype == "bfloat16" else None)
    a = a.astype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)
    return {"a": dtype, "shape": list(a.shape), "hex": a.tobytes().hex()}


def py(v):
    """A Python scalar ARG (weakly typed)."""
    return {"py": {"re": v.real, "im": v.imag}} if isinstance(v, complex) else {"py": v}


def _call(label, fn, args, kw=None, mode="eager", x64=False):
    return {"seed": label, "fn": fn, "args": args, "kw": kw or {}, "mode": mode, "x64": x64}


EDGES = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 1.5, 3.0, 1e30, -1e-30,
         1e-30, 0.25, 2.5]
P_EDGES = np.repeat(np.array(EDGES), len(EDGES))
Q_EDGES = np.tile(np.array(EDGES), len(EDGES))
CPLX = [0j, 1j, complex(0, np.nan), complex(np.nan, 0), complex(-0.0, 2), 2 + 0j]
BOOLS = [[True, False], [True, True]]


def cases():
    """The hand-written calls, each labelled by the difference it pins."""
    out = []
    for fn in ("jnp.all", "jnp.any"):
        for mode in ("eager", "vmap"):   # (vmap: 0-d rows, the reduction of no axes)
            out.append(_call("complex-real-part", fn, [arr(CPLX, "complex64")], mode=mode))
    for x64 in (False, True):
        out.append(_call("complex-const", "jnp.logaddexp",
                         [arr([[-1, 2], [3, 4]], "int32"), py(2 - 0.5j)], mode="jit", x64=x64))
        out.append(_call("weak-complex", "jnp.logaddexp", [py(2 - 0.5j), py(1.0)], x64=x64))
        out.append(_call("complex-const", "jnp.logaddexp2",
                         [arr([-1, 2], "int8"), py(1 - 1j)], mode="vmap", x64=x64))
    for dt in ("float32", "float64", "bfloat16"):
        x64 = dt == "float64"
        out.append(_call("edges", "lax.acosh", [arr(EDGES, dt)], mode="grad", x64=x64))
        out.append(_call("edges", "special.entr", [arr(EDGES, dt)], x64=x64))
        out.append(_call("edges", "special.entr", [arr(EDGES, dt)], mode="grad", x64=x64))
        for fn in ("special.kl_div", "special.rel_entr", "special.xlogy", "special.xlog1py"):
            for mode in ("eager", "grad"):
                out.append(_call("edges", fn, [arr(P_EDGES, dt), arr(Q_EDGES, dt)],
                                 mode=mode, x64=x64))
                out.append(_call("edges-swapped", fn, [arr(Q_EDGES, dt), arr(P_EDGES, dt)],
                                 mode=mode, x64=x64))
    out.append(_call("weak-int-strong", "special.rel_entr", [arr([0, 2, 3], "int32"), py(2.0)]))
    out.append(_call("weak-int-strong", "special.kl_div", [arr([0, 2, 3], "int32"), py(0.0)],
                     mode="jit"))
    out.append(_call("weak", "special.xlogy", [py(0.0), py(np.nan)]))
    out.append(_call("0d-base", "jnp.power", [py(7), arr([[[8, 4, -8]], [[6, 1, -6]]], "int16")],
                     mode="vmap"))
    for x64 in (False, True):
        for fn in ("jnp.right_shift", "jnp.left_shift"):
            out.append(_call("bools", fn, [arr(BOOLS, "bool"), arr(BOOLS[::-1], "bool")],
                             mode="jit", x64=x64))
            out.append(_call("bools", fn, [arr(BOOLS, "bool"), py(True)], x64=x64))
        out.append(_call("bools", "jnp.bitwise_count", [arr(BOOLS, "bool")], mode="vmap",
                         x64=x64))
        out.append(_call("bools", "jnp.power", [arr(BOOLS, "bool"), arr(BOOLS, "bool")],
                         x64=x64))
        out.append(_call("bools", "jnp.square", [arr(BOOLS, "bool")], mode="jit", x64=x64))
    for mode in ("eager", "jit"):
        for kind in ("clip", "fill", "drop"):
            idx = {"t": [{"s": [None, 0, None]}, arr([0, 5], "int32")]}
            out.append(_call("empty-update", "at", [arr(np.arange(6.0).reshape(2, 3), "float32"),
                                                    idx, arr([1, 2, 3], "float32")],
                             {"method": "set", "mode": kind}, mode=mode))
    for mode in ("eager", "jit"):
        out.append(_call("complex", "lax.bitcast_convert_type",
                         [arr(np.ones((2, 4)), "complex64"), {"d": "int8"}], mode=mode))
        out.append(_call("shape", "lax.bitcast_convert_type",
                         [arr(np.ones((2, 4)), "int16"), {"d": "float32"}], mode=mode))
        out.append(_call("bool", "nn.softmax", [arr([True, False], "bool")], mode=mode))
        out.append(_call("bool", "nn.log_softmax", [arr(BOOLS, "bool")], {"axis": 0},
                         mode=mode))
        for approximate in (True, False):
            out.append(_call("weak-scalar", "nn.gelu", [py(1.5)],
                             {"approximate": approximate}, mode=mode))
            out.append(_call("tail", "nn.gelu", [arr([-9.0, -5.0, -1.0, 0.5, 3.0], "float32")],
                             {"approximate": approximate}, mode=mode))
        for fn in ("jnp.nanmin", "jnp.nanmax"):
            out.append(_call("float-initial", fn, [arr([8, 3], "uint16")], {"initial": -1.0},
                             mode=mode))
            out.append(_call("float-initial", fn, [arr([8, 3], "int8")], {"initial": 300.0},
                             mode=mode, x64=True))
        out.append(_call("int-decimals", "jnp.round", [arr([1, -1, 250], "int32")],
                         {"decimals": -2}, mode=mode))
    # seeds 30703, 30783, 30990 (fixed after the run of 30400:31100)
    for mode in ("eager", "vmap"):
        out.append(_call("unary-preferred", "jnp.einsum",
                         ["ij->", arr(np.ones((2, 2, 3)), "int64")],
                         {"preferred_element_type": {"d": "float64"}}, mode=mode, x64=True))
    out.append(_call("unary-preferred", "jnp.einsum", ["ij->i", arr(np.ones((2, 3)), "int32")],
                     {"preferred_element_type": {"d": "float32"}}, mode="jit"))
    out.append(_call("complex-q", "special.zeta", [arr([1.5, 2.5], "float32"), py(0.5 - 0.5j)]))
    for x64 in (False, True):
        out.append(_call("f32-start", "jnp.linspace",
                         [{"np": "float32", "hex": np.float32(0.5).tobytes().hex()}, -3.0],
                         {"num": 3}, mode="jit", x64=x64))
        out.append(_call("int-start", "jnp.linspace", [arr(2, "int64"), 7.0], {"num": 4},
                         x64=x64))
    # seed 31258: .at[].power values that do not broadcast: JAX's ValueError
    for mode in ("eager", "vmap"):
        out.append(_call("power-values", "at", [arr(np.arange(12).reshape(2, 2, 3), "int64"),
                                                {"t": [{"e": 1}, 2]},
                                                arr(np.ones((2, 3)), "int64")],
                         {"method": "power"}, mode=mode, x64=True))
    # a user's Python scalar in lax is a weak value of its default dtype (JAX's rule)
    f32, i32 = arr([1.0, -2.0, 3.5], "float32"), arr([1, -2, 3], "int32")
    for mode in ("eager", "jit"):
        for x64 in (False, True):
            for fn, args in (("lax.add", [f32, py(1)]), ("lax.add", [f32, py(1.5)]),
                             ("lax.add", [i32, py(1.5)]), ("lax.add", [i32, py(2)]),
                             ("lax.max", [arr([True, False], "bool"), py(1)]),
                             ("lax.eq", [py(1), f32]), ("lax.lt", [f32, py(0.5)]),
                             ("lax.shift_left", [i32, py(1)]), ("lax.pow", [f32, py(2)]),
                             ("lax.pow", [f32, py(0.5)]), ("lax.atan2", [py(1.0), f32]),
                             ("lax.clamp", [py(0), f32, py(1)]),
                             ("lax.clamp", [py(0.0), f32, py(1.0)]),
                             ("lax.pad", [arr([1, 2], "int8"), py(0), {"t": [{"t": [1, 1, 0]}]}]),
                             ("lax.pad", [f32, py(0.0), {"t": [{"t": [1, 0, 1]}]}]),
                             ("lax.igamma", [f32, py(2)]), ("lax.igamma", [f32, py(2.0)]),
                             ("lax.igamma", [i32, i32])):
                out.append(_call("lax-scalar", fn, args, mode=mode, x64=x64))
    # complex arguments: JAX's TypeError (lax's floating-only primitives) or ValueError
    c64 = arr([1 + 1j, 2 - 0.5j], "complex64")
    for fn, args in (("special.gammainc", [c64, arr([1.0, 2.0], "float32")]),
                     ("special.gammaincc", [arr([1.0, 2.0], "float32"), py(0.5 + 0.5j)]),
                     ("special.i0e", [c64]), ("special.i1", [c64]), ("special.entr", [c64]),
                     ("special.rel_entr", [c64, py(1.0)]), ("special.kl_div", [py(2.0), c64])):
        out.append(_call("complex", fn, args, mode="jit"))
    # a where mask that does not broadcast with the operand: JAX's ValueError
    for fn in ("jnp.nanmean", "jnp.nanvar", "jnp.nanstd", "jnp.nansum", "jnp.mean"):
        out.append(_call("where-shape", fn, [f32], {"where": arr([True, False], "bool")}))
    # seed 40072: a scalar index into an axis of size 0, any mode: JAX's IndexError
    empty, empty2 = arr(np.zeros(0), "uint16"), arr(np.zeros((2, 0)), "float32")
    for mode in ("eager", "jit"):
        for method, kw in (("get", {"mode": "drop"}), ("get", {"mode": "fill"}),
                           ("set", {"mode": "drop"}), ("add", {"mode": "clip"})):
            vals = [] if method == "get" else [py(1)]
            out.append(_call("empty-axis", "at", [empty, {"t": [0]}] + vals,
                             {"method": method, **kw}, mode=mode))
            out.append(_call("empty-axis", "at", [empty2, {"t": [{"s": [None, None, None]},
                                                                  arr(-1, "int32")]}] + vals,
                             {"method": method, **kw}, mode=mode))
    # seed 40269: einsum sums in the operand's dtype (bool by `or`), as JAX's
    for x64 in (False, True):
        for dt in ("int8", "uint32", "bool"):
            out.append(_call("einsum-sum", "jnp.einsum", ["ij->i", arr(np.ones((2, 3)), dt)],
                             x64=x64))
            out.append(_call("einsum-sum", "jnp.einsum", ["ij,jk->", arr(np.ones((2, 3)), dt),
                                                          arr(np.ones((3, 2)), dt)], mode="jit",
                             x64=x64))
    # seed 31569: unstable descending argsort: XLA's order of ties, reversed, as JAX's
    ties = arr([-1.5, -0.0, -0.0, 2.0, 2.0], "float32")
    for stable in (False, True):
        out.append(_call("argsort-ties", "jnp.argsort", [ties],
                         {"descending": True, "stable": stable}, mode="jit"))
    # seed 40478: logaddexp2's 1/ln 2 is JAX's `lax._const` (strong unless the value is a
    # weak 0-d one), so the result of a weak array is strong
    for x64 in (False, True):
        for mode in ("eager", "jit", "vmap"):
            out.append(_call("logaddexp2-weak", "jnp.logaddexp2",
                             [arr(np.arange(3), "uint8"), py(-0.0)], mode=mode, x64=x64))
        out.append(_call("logaddexp2-weak", "jnp.logaddexp2", [py(1.0), py(2.5)], mode="jit",
                         x64=x64))
    # seeds 40508, 40743: igamma & co. keep JAX's standard weak type (weak when every
    # operand is)
    for fn, args, grad in (("special.gammaincc", [py(True), py(3)], False),
                           ("special.gammainc", [py(3), py(-np.inf)], False),
                           ("special.betainc", [py(1.0), py(2.0), py(0.5)], True),
                           ("special.gammainc", [py(1.0), arr([0.5, 2.0], "float32")], False),
                           ("lax.igammac", [py(1.5), py(2.0)], True)):
        for mode in ("eager", "jit", "grad") if grad else ("eager", "jit"):
            out.append(_call("igamma-weak", fn, args, mode=mode, x64=True))
    # lax.pad's arguments as JAX checks them: list / array entries of padding_config are a
    # TypeError (JAX hashes them), a list padding value a TypeError, a padding value that
    # is not 0-d a ValueError; a list of tuples is fine
    for mode in ("eager", "jit"):
        for args in ([f32, py(0.0), [[1, 1, 0]]], [f32, py(0.0), [{"t": [1, 1, 0]}]],
                     [f32, [0.0], [{"t": [1, 1, 0]}]],
                     [f32, arr([0.0], "float32"), [{"t": [1, 1, 0]}]],
                     [f32, py(0.0), [{"t": [1, 1]}]], [f32, py(0.0), "abc"]):
            out.append(_call("pad-args", "lax.pad", args, mode=mode))
    for i, c in enumerate(out):   # unique replay names
        c["seed"] = f"case{i}-{c['seed']}"
    return out
