"""`ffi_call`: one call of a foreign-function (XLA FFI) target, the primitive behind
`astjax.ffi.ffi_call` (JAX's `jax.ffi`).

The target is native code registered with XLA (`astjax.ffi.register_ffi_target`, or one
of jaxlib's own CPU kernels such as `lapack_spotrf_ffi`); astjax knows only what the
caller declares: the results' avals, the operands' and results' layouts, aliasing and
whether the call has a side effect. The params, as JAX names them:

- `result_avals`: the declared results (the abstract evaluation);
- `target_name`, `custom_call_api_version` (4: the typed FFI), `legacy_backend_config`
  (the opaque string of older targets), `has_side_effect`;
- `input_layouts` / `output_layouts`: minor-to-major dimension orders, one per operand
  / result (row-major by default);
- `input_output_aliases`: (operand, result) pairs the kernel writes in place;
- `attributes`: the call's keyword arguments as sorted (name, value) pairs (arrays and
  dicts in hashable wrappers), passed to the kernel as the dictionary `backend_config`;
- `vmap_method`: how `vmap` batches the call (below).

Rules: the abstract evaluation returns the declared avals; there is no NumPy
reference (the kernel is native code: an eager call compiles a one-call program),
no derivative (JAX's ValueError). Batching follows `vmap_method`: `sequential` /
`sequential_unrolled` loop over the batch with `scan` (rolled / unrolled),
`expand_dims` gives unmapped operands a batch axis of size 1 and `broadcast_all` one of
the batch size, `legacy_vectorized` passes unmapped operands unchanged; the kernel sees
the batch axis outermost (layouts updated). Without a method, `vmap` is JAX's
NotImplementedError. The lowering is one `stablehlo.custom_call`; on CPU jaxlib's own
kernels are registered first (JAX registers them when its CPU backend starts). Printed
source binds the primitive (`ffi_call_p.bind(...)`), and runs again.

Tokens (the end of this module): `create_token` and `after_all`, JAX's primitives of
those names, make the XLA tokens a kernel takes and returns to order its side effects;
`Token` stands for one outside a compiled program. An `ffi_call` with token operands
or results has no batching rule (a located error, as JAX fails there).
"""
from __future__ import annotations

import numpy as np

from .. import core
from ..core import abstract_token
from ..errors import AstjaxError, JAXValueError
from ..mlir_attributes import dictionary_text
from ..pyast import call, load
from .base import bdim_at_front, mark_unsupported, nondiff, register
from .lapack import alias_attr, layout_attr, register_targets
from .scan import scan

__all__ = ["ffi_call_p", "HashableArray", "FrozenDict", "VMAP_METHODS", "FfiVmapError",
           "Token", "create_token", "create_token_p", "after_all", "after_all_p", "staged_token"]

VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                "legacy_vectorized")


class FfiVmapError(AstjaxError, NotImplementedError):
    """`vmap` of an FFI call made without a `vmap_method` (JAX raises
    NotImplementedError)."""
    default_hint = ("pass vmap_method= to ffi_call: 'sequential' loops over the batch, "
                    "'broadcast_all' / 'expand_dims' hand the kernel the whole batch")


class HashableArray:
    """A NumPy array attribute, hashed and compared by value (equations' params must
    be hashable); `val` is the array."""

    def __init__(self, val):
        self.val = np.array(val, copy=True)
        self.val.setflags(write=False)

    def __hash__(self):
        return hash((self.val.shape, self.val.dtype, self.val.tobytes()))

    def __eq__(self, other):
        return (isinstance(other, HashableArray) and self.val.dtype == other.val.dtype
                and np.array_equal(self.val, other.val))

    def __repr__(self):
        return repr(self.val)


class FrozenDict:
    """A dict attribute (a nested dictionary attribute), hashed by its items."""

    def __init__(self, d):
        self._d = dict(d)

    def __hash__(self):
        return hash(tuple(sorted(self._d.items())))

    def __eq__(self, other):
        return isinstance(other, FrozenDict) and self._d == other._d

    def __repr__(self):
        return repr(self._d)


def _plain(v):
    """An attribute's value as given by the caller (wrappers removed)."""
    return v.val if isinstance(v, HashableArray) else v._d if isinstance(v, FrozenDict) else v


# ---------------------------------------------------------------- ffi_call
ffi_call_p = core.new_primitive("ffi_call", multiple_results=True)


def _ffi_abstract_eval(*avals, result_avals, **_):
    return list(result_avals)


def _ffi_jvp(primals, tangents, *, target_name, **_):
    raise JAXValueError(f"The FFI call to `{target_name}` cannot be differentiated. You can "
                        "use `jax.custom_jvp` or `jax.custom_jvp` to add support.")


def _batched_layouts(layouts):
    """Per-example minor-to-major layouts with a new outermost (batch) axis 0."""
    return tuple(None if l is None else tuple(n + 1 for n in l) + (0,) for l in layouts)


def _ffi_batch(args, dims, *, vmap_method, result_avals, **params):
    if any(isinstance(a, core.TokenAval) for a in (*map(core.get_aval, args), *result_avals)):
        raise FfiVmapError(f"vmap of an ffi_call of `{params['target_name']}` with token "
                           "operands or results (JAX fails there as well)",
                           hint="call the kernel on the whole batch outside vmap, or "
                                "without tokens (has_side_effect=True keeps the call)")
    size = next(core.get_aval(a).shape[d] for a, d in zip(args, dims) if d is not None)
    batched_avals = tuple(a.update(shape=(size,) + a.shape) for a in result_avals)
    if vmap_method in ("sequential", "sequential_unrolled"):
        mapped = [d is not None for d in dims]
        xs = [bdim_at_front(a, d) for a, d in zip(args, dims) if d is not None]

        def body(carry, x):
            it = iter(x)
            ops = [next(it) if m else a for a, m in zip(args, mapped)]
            return carry, ffi_call_p.bind(*ops, vmap_method=vmap_method,
                                          result_avals=result_avals, **params)
        _, outs = scan(core.raw(body), (), xs,
                       unroll=size if vmap_method == "sequential_unrolled" else 1)
        return list(outs), [0] * len(outs)
    if vmap_method not in VMAP_METHODS:
        raise FfiVmapError(
            "vmap is only supported for the ffi_call primitive when vmap_method is one of "
            "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
            f"'legacy_vectorized'. Got vmap_method={vmap_method!r}.")
    params["output_layouts"] = _batched_layouts(params["output_layouts"])
    if vmap_method == "legacy_vectorized":
        ops = [a if d is None else bdim_at_front(a, d) for a, d in zip(args, dims)]
        params["input_layouts"] = tuple(
            l if d is None else _batched_layouts([l])[0]
            for l, d in zip(params["input_layouts"], dims))
    else:
        fill = size if vmap_method == "broadcast_all" else 1
        ops = [bdim_at_front(a, d, fill) for a, d in zip(args, dims)]
        params["input_layouts"] = _batched_layouts(params["input_layouts"])
    outs = ffi_call_p.bind(*ops, vmap_method=vmap_method, result_avals=batched_avals,
                           **params)
    return list(outs), [0] * len(outs)


def _ffi_lowering(ctx, *args, target_name, has_side_effect, input_layouts, output_layouts,
                  input_output_aliases, custom_call_api_version, legacy_backend_config,
                  attributes, **_):
    if ctx.platform == "cpu":
        register_targets()
    if custom_call_api_version >= 4:
        config = dictionary_text({k: _plain(v) for k, v in attributes})
    elif attributes:
        raise JAXValueError("The use of ffi_call attributes requires a custom call API "
                            f"version of at least 4; got api_version={custom_call_api_version}.")
    else:
        config = '"' + (legacy_backend_config or "").replace("\\", "\\\\").replace('"', '\\"') \
            + '"'
    call = {"call_target_name": '"' + target_name + '"',
            "api_version": f"{int(custom_call_api_version)} : i32",
            "backend_config": config,
            "has_side_effect": "true" if has_side_effect else "false",
            "operand_layouts": "[" + ", ".join(map(layout_attr, input_layouts)) + "]",
            "result_layouts": "[" + ", ".join(map(layout_attr, output_layouts)) + "]"}
    if input_output_aliases:
        call["output_operand_aliases"] = alias_attr(dict(input_output_aliases),
                                                    len(ctx.avals_out) == 1)
    return ctx.op("stablehlo.custom_call", args, ctx.avals_out, call)


def _ffi_source(gen, eqn):
    # `ffi_call_p.bind(...)`; the attributes and result avals are passed as the very
    # objects (a printed `np.uint8(76)` would come back as a Python int, an i64)
    params = {k: load(gen.inject(v, k)) if k in ("attributes", "result_avals")
              else gen.value(v) for k, v in eqn.params.items()}
    return call(f"{gen.inject(ffi_call_p, 'ffi_call_p')}.bind",
                [gen.arg(a) for a in eqn.invars], **params)


register(ffi_call_p, abstract_eval=_ffi_abstract_eval, jvp=_ffi_jvp, batch=_ffi_batch,
         lowering=_ffi_lowering, source=_ffi_source)
mark_unsupported(ffi_call_p, "impl", "an FFI target is native code only XLA calls: an eager "
                 "ffi_call compiles a program of the one call")
ffi_call_p.effectful = lambda params: bool(params["has_side_effect"])


# ---------------------------------------------------------------- tokens
# An FFI kernel orders its side effects with others by taking and returning XLA tokens
# (`ffi::Token` arguments and results; `core.abstract_token` in `result_shape_dtypes`):
# a call that reads the token another returned runs after it. JAX's `FfiEffect` is
# not an ordered effect, so tokens the user threads are the only order XLA keeps
# between two side-effecting calls with no data between them.


class Token:
    """A token outside a compiled program (JAX's `core.Token`): what `create_token`
    and `after_all` return eagerly, and what an eager `ffi_call` returns for a token
    result. It holds no data: eager calls run one after another anyway."""
    aval = abstract_token

    def block_until_ready(self):
        """Nothing to wait for: returns the token."""
        return self


def staged_token(x):
    """`x` as a staged operand: a host `Token` becomes a fresh `create_token`."""
    return create_token_p.bind() if isinstance(x, Token) else x


create_token_p = core.new_primitive("create_token")


def create_token(_=None):
    """JAX's `lax.create_token`: a token with no preconditions (the argument is
    ignored, as in JAX)."""
    if core.current_builder() is None:
        return Token()
    return create_token_p.bind()


register(create_token_p, abstract_eval=lambda: abstract_token,
         batch=lambda args, dims: (create_token_p.bind(), None),
         lowering=lambda ctx: ctx.op1("stablehlo.create_token", []))
mark_unsupported(create_token_p, "impl", "a token has no value: an eager create_token "
                 "returns a host Token without running anything")
nondiff(create_token_p)

after_all_p = core.new_primitive("after_all")


def _after_all_ae(*avals):
    if any(not isinstance(a, core.TokenAval) for a in avals):
        raise JAXValueError(f"after_all takes tokens only, got "
                            f"{', '.join(a.str_short(True) for a in avals)}",
                            hint="pass tokens from lax.create_token() or an ffi_call")
    return abstract_token


def after_all(*operands):
    """JAX's `lax.after_all`: a token that comes after every token of `operands`."""
    if core.current_builder() is None:
        _after_all_ae(*(core.get_aval(t) for t in operands))
        return Token()
    return after_all_p.bind(*map(staged_token, operands))


register(after_all_p, abstract_eval=_after_all_ae,
         batch=lambda args, dims: (after_all_p.bind(*args), None),
         lowering=lambda ctx, *ts: ctx.op1("stablehlo.after_all", list(ts)))
mark_unsupported(after_all_p, "impl", "a token has no value: an eager after_all returns "
                 "a host Token without running anything")
nondiff(after_all_p)
