"""Lowering rules written with jaxlib's MLIR op builders (`hlo.AddOp(...)`), run
inside astjax's text lowering.

JAX's lowering rules build MLIR operations through jaxlib's Python bindings
(`jaxlib.mlir.ir`, `jaxlib.mlir.dialects.stablehlo` -- JAX's `hlo` --, `func`);
astjax's own rules emit StableHLO text (`codegen/stablehlo.py`). A user's rule of the
first kind, registered with `mlir.register_lowering`, is run here, one equation at a
time: a private `func.func` is built with jaxlib's bindings (one block argument per
operand, typed from the equation's avals), the rule is called with a
`LoweringRuleContext` (JAX's fields: `avals_in`, `avals_out`, `primitive`,
`name_stack`, `tokens_in` / `tokens_out` / `set_tokens_out`, `module_context`,
`platforms`, `replace`), its results are returned, and the function's printed text
joins astjax's module, called from the equation's place by `func.call` (XLA inlines
it).

Such a rule may call `mlir.lower_fun(fun)(ctx, *values)` on its own MLIR values:
`fun` is staged on `ctx.avals_in` and lowered by astjax's text lowering into one more
private function of the module, which the rule's function declares and calls.

Tokens: astjax threads no ordered effects through a builder rule, so `tokens_in` is
always the empty `TokenSet`; a rule that passes it on (`ctx.set_tokens_out(
ctx.tokens_in)`, as effect-free JAX rules do) runs, and one that sets tokens of an
effect is refused.

Also here: the helpers JAX's `mlir` module gives such rules (`aval_to_ir_type(s)`,
`dtype_to_ir_type`, `ir_constant`, `ir_attribute`, `i32_attr`, `i64_attr`,
`dense_int_array`, `dense_int_elements`; and, from JAX's private module,
`custom_call`, `broadcast_in_dim`, `full_like_aval`, `compare_hlo`, `convert_hlo`),
re-exported by `astjax.interpreters.mlir` and `jax._src.interpreters.mlir`
(astjax/compat/_src/interpreters/mlir.py).
"""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _jax_mlir_ext
from jaxlib.mlir.dialects import chlo, stablehlo
from jaxlib.mlir.dialects import func as func_dialect

from .. import core, dtypes
from ..errors import JAXTypeError, JAXValueError, NotImplementedInAstjaxError
from ..primitives.callbacks import HostCall, io_callback_p, pure_callback_p
from ..mlir_attributes import dtype_to_ir_type, ir_attribute
from .stablehlo import ModuleBuilder, lower_jaxpr, tensor_type

__all__ = ["ir", "stablehlo", "func_dialect", "new_context", "dtype_to_ir_type",
           "aval_to_ir_type", "aval_to_ir_types", "ir_constant", "ir_attribute", "i32_attr",
           "i64_attr", "dense_int_array", "dense_int_elements", "custom_call",
           "broadcast_in_dim", "full_like_aval", "compare_hlo", "convert_hlo", "TokenSet",
           "ModuleContext", "LoweringRuleContext", "lower_fun_with_builders", "emit_python_callback",
           "lower_with_builders"]


def new_context() -> ir.Context:
    """An MLIR context with the StableHLO, CHLO, func and the other dialects JAX's
    rules use loaded."""
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)   # func, arith, ... as JAX loads them
    context = ir.Context()
    context.append_dialect_registry(registry)
    context.load_all_available_dialects()
    stablehlo.register_dialect(context)
    chlo.register_dialect(context)
    return context


def _the_aval(args, name):
    """The aval of `name(aval)` or, as JAX 0.10.2 calls it, `name(module_context, aval)`."""
    if len(args) == 2 and isinstance(args[0], ModuleContext):
        return args[1]
    if len(args) != 1:
        raise JAXTypeError(f"{name} takes (aval) or (module_context, aval), got {len(args)} "
                           "arguments")
    return args[0]


def aval_to_ir_type(*args) -> ir.Type:
    """The ranked tensor type of an abstract value (shape and dtype); called as
    `aval_to_ir_type(aval)` or JAX 0.10.2's `aval_to_ir_type(ctx.module_context, aval)`."""
    aval = _the_aval(args, "aval_to_ir_type")
    return ir.RankedTensorType.get(list(aval.shape), dtype_to_ir_type(aval.dtype))


def aval_to_ir_types(*args) -> tuple:
    """JAX's `aval_to_ir_types`: the one tensor type of the aval, as a tuple (same
    arguments as `aval_to_ir_type`)."""
    return (aval_to_ir_type(_the_aval(args, "aval_to_ir_types")),)


def ir_constant(val, *, const_lowering=None, aval=None) -> ir.Value:
    """A `stablehlo.constant` holding `val` (a scalar or array), as a Value; with
    `aval`, of that aval's dtype and shape (`const_lowering` is accepted for JAX's
    signature: astjax hoists no constants)."""
    if aval is not None:
        val = np.broadcast_to(np.asarray(val, aval.dtype), aval.shape)
    a = np.asarray(val)
    if a.dtype == np.float64 and not dtypes.config.x64_enabled:
        a = a.astype(np.float32)
    elif a.dtype == np.int64 and not dtypes.config.x64_enabled:
        a = a.astype(np.int32)
    typ = ir.RankedTensorType.get(list(a.shape), dtype_to_ir_type(a.dtype))
    if a.dtype == np.bool_:
        attr = ir.DenseElementsAttr.get(np.packbits(a, bitorder="little"), type=typ)
    else:
        attr = ir.DenseElementsAttr.get(np.ascontiguousarray(a), type=typ)
    return stablehlo.ConstantOp(attr).result


def i32_attr(i) -> ir.Attribute:
    """A signless 32-bit integer attribute."""
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(i))


def i64_attr(i) -> ir.Attribute:
    """A signless 64-bit integer attribute."""
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(i))


def dense_int_array(xs) -> ir.Attribute:
    """An `array<i64: ...>` attribute (dimension lists of StableHLO ops)."""
    return ir.DenseI64ArrayAttr.get([int(x) for x in xs])


def dense_int_elements(xs) -> ir.Attribute:
    """A `dense<...> : tensor<Nxi64>` attribute."""
    return ir.DenseIntElementsAttr.get(np.asarray(xs, np.int64))


def _layouts_attr(target, layouts, values, what):
    """The layouts attribute of custom call `target`: one minor-to-major dimension
    order per operand / result (`what`) in `values`."""
    layouts = list(layouts)
    if len(layouts) != len(values):
        raise JAXValueError(f"custom_call {target}: {len(layouts)} {what} layouts for "
                            f"{len(values)} {what}s")
    return ir.ArrayAttr.get([
        ir.DenseIntElementsAttr.get(np.atleast_1d(np.asarray(list(l), np.int64)),
                                    type=ir.IndexType.get()) for l in layouts])


def custom_call(call_target_name: str, *, result_types, operands, backend_config="",
                has_side_effect: bool = False, result_shapes=None, called_computations=(),
                api_version: int = 2, operand_output_aliases=None, operand_layouts=None,
                result_layouts=None, extra_attributes=None):
    """JAX's `mlir.custom_call`: a `stablehlo.custom_call` op of `call_target_name`
    on `operands` (`ir.Value`s) with results of `result_types`; returns the op (its
    `.results` are the values). `backend_config` is a string (opaque bytes for the
    kernel) or a dict of attributes (typed-FFI targets), which, as in JAX, goes in
    the `mhlo.backend_config` attribute with `backend_config = ""` and API version 1
    (XLA reads it from there). `operand_output_aliases` maps an operand index to the
    result it is written into; layouts are minor-to-major dimension orders, one per
    operand / result. `result_shapes` (values giving dynamic result shapes) go after
    the operands."""
    operands = list(operands)
    result_types = list(result_types)
    dict_config = isinstance(backend_config, dict)
    if backend_config is None or dict_config:
        config = ir.StringAttr.get("")
    elif isinstance(backend_config, (str, bytes)):
        config = ir.StringAttr.get(backend_config)
    else:
        raise JAXValueError(f"custom_call backend_config must be a str, bytes or dict, got "
                            f"{type(backend_config).__name__}")
    if dict_config:
        api_version = 1
    attrs = {"call_target_name": ir.StringAttr.get(call_target_name),
             "has_side_effect": ir.BoolAttr.get(bool(has_side_effect)),
             "backend_config": config, "api_version": i32_attr(api_version),
             "called_computations": ir.ArrayAttr.get(
                 [ir.FlatSymbolRefAttr.get(n) for n in called_computations])}
    if operand_output_aliases is not None:
        many = len(result_types) > 1   # one result: the alias names it implicitly
        attrs["output_operand_aliases"] = ir.ArrayAttr.get([
            stablehlo.OutputOperandAlias.get(output_tuple_indices=[out] if many else [],
                                             operand_index=arg, operand_tuple_indices=[])
            for arg, out in operand_output_aliases.items()])
    if extra_attributes is not None:
        attrs.update(extra_attributes)
    if result_shapes is not None:
        first = len(operands)
        attrs["indices_of_shape_operands"] = ir.DenseIntElementsAttr.get(
            np.arange(first, first + len(result_shapes), dtype=np.int64))
        if operand_layouts is not None:
            operand_layouts = list(operand_layouts) + [(0,)] * len(result_shapes)
        operands += list(result_shapes)
    if operand_layouts is not None:
        attrs["operand_layouts"] = _layouts_attr(call_target_name, operand_layouts, operands,
                                                 "operand")
    if result_layouts is not None:
        attrs["result_layouts"] = _layouts_attr(call_target_name, result_layouts,
                                                result_types, "result")
    op = stablehlo.CustomCallOp.build_generic(results=result_types, operands=operands,
                                              attributes=attrs)
    if dict_config:
        op.operation.attributes["mhlo.backend_config"] = ir.DictAttr.get(
            {k: ir_attribute(v) for k, v in backend_config.items()})
    return op


def broadcast_in_dim(ctx, op, aval_out, *, broadcast_dimensions) -> ir.Value:
    """`op` broadcast to `aval_out`'s (static) shape, operand axis i going to result
    axis `broadcast_dimensions[i]`."""
    return stablehlo.broadcast_in_dim(aval_to_ir_type(aval_out), op,
                                      dense_int_array(broadcast_dimensions))


def full_like_aval(ctx, value, aval) -> ir.Value:
    """An array of `aval`'s shape and dtype filled with `value`."""
    return broadcast_in_dim(ctx, ir_constant(np.array(value, aval.dtype)), aval,
                            broadcast_dimensions=())


def compare_hlo(x, y, direction: str, comparison_type: str | None = None) -> ir.Value:
    """`stablehlo.compare` of `x` and `y` (`direction`: "EQ", "NE", "LT", ...); the
    comparison type defaults from the element type: FLOAT for floating and complex
    values, UNSIGNED for unsigned integers, SIGNED for the other integers (bool too)."""
    if comparison_type is None:
        elem = ir.RankedTensorType(x.type).element_type
        if isinstance(elem, ir.IntegerType):
            comparison_type = "UNSIGNED" if elem.is_unsigned else "SIGNED"
        else:
            comparison_type = "FLOAT"
    return stablehlo.compare(x, y, stablehlo.ComparisonDirectionAttr.get(direction),
                             compare_type=stablehlo.ComparisonTypeAttr.get(comparison_type))


def convert_hlo(ctx, x, aval_in, aval_out) -> ir.Value:
    """`x` (of `aval_in`) converted to `aval_out`'s dtype; to bool it is `x != 0`
    (not a truncation of the bits), as `lax.convert_element_type` converts."""
    if np.dtype(aval_out.dtype) == np.bool_:
        kind = np.dtype(aval_in.dtype).kind
        how = "FLOAT" if kind in "fc" else "UNSIGNED" if kind in "ub" else "SIGNED"
        x = compare_hlo(x, full_like_aval(ctx, 0, aval_in), "NE", how)
    return stablehlo.convert(aval_to_ir_type(aval_out), x)


class TokenSet:
    """JAX's `TokenSet`: the ordered effects' tokens a rule reads and passes on
    (effect -> token value). Builder rules get the empty set (module docstring)."""

    def __init__(self, tokens=None):
        self._tokens = dict(tokens or {})

    def __len__(self):
        return len(self._tokens)

    def get(self, effect):
        """The token of `effect` (KeyError: the rule's equation has no such effect)."""
        return self._tokens[effect]

    def items(self):
        """(effect, token) pairs."""
        return tuple(self._tokens.items())

    def effects(self) -> set:
        """The effects with a token."""
        return set(self._tokens)

    def subset(self, effects) -> "TokenSet":
        """The tokens of `effects` only."""
        return TokenSet({e: self._tokens[e] for e in effects})

    def update_tokens(self, tokens: "TokenSet") -> "TokenSet":
        """This set with `tokens`' entries replacing or added to its own."""
        return TokenSet({**self._tokens, **dict(tokens.items())})


class NameStack:
    """JAX's name stack: the scopes and transformations an equation sits in, printed
    joined by '/'. astjax's equations carry none, so rules start from the empty one."""

    def __init__(self, stack=()):
        self.stack = tuple(stack)

    def extend(self, name) -> "NameStack":
        """This stack with scope `name` (or a tuple of names) inside it."""
        return NameStack(self.stack + (tuple(name) if isinstance(name, tuple) else (name,)))

    def transform(self, name) -> "NameStack":
        """This stack inside transformation `name` (printed `name(...)`)."""
        return NameStack(self.stack + (f"{name}()",))

    def __len__(self):
        return len(self.stack)

    def __getitem__(self, idx):
        return NameStack(self.stack[idx])

    def __add__(self, other):
        return NameStack(self.stack + other.stack)

    def __str__(self):
        return "/".join(self.stack)


@dataclasses.dataclass
class ModuleContext:
    """JAX's `ModuleContext`, as far as a rule reads it: the MLIR context and module
    being built and the platforms lowered for."""
    context: Any
    module: Any
    platforms: tuple
    backend: Any = None
    name_stack: NameStack = dataclasses.field(default_factory=NameStack)
    keepalives: list = dataclasses.field(default_factory=list)

    def replace(self, **kw):
        """A copy with fields `kw` replaced."""
        return dataclasses.replace(self, **kw)

    def add_keepalive(self, keepalive) -> None:
        """Keep `keepalive` (an `emit_python_callback`'s host function) alive with the
        module being built (JAX's: the lowered module's host callbacks hold it)."""
        self.keepalives.append(keepalive)


@dataclasses.dataclass
class LoweringRuleContext:
    """What a builder rule receives (JAX's `LoweringRuleContext`); `_builder` is
    astjax's module being lowered (for `lower_fun` inside the rule)."""
    module_context: ModuleContext
    name_stack: NameStack
    primitive: Any
    avals_in: list
    avals_out: list
    tokens_in: TokenSet
    tokens_out: TokenSet | None = None
    platforms: tuple | None = None
    traceback: Any = None
    const_lowering: dict = dataclasses.field(default_factory=dict)
    dim_var_values: tuple = ()
    axis_size_env: Any = None
    jaxpr_eqn_ctx: Any = None
    _builder: Any = None

    @property
    def platform(self):
        """The one platform lowered for."""
        return (self.platforms or self.module_context.platforms)[0]

    def set_tokens_out(self, tokens_out: TokenSet):
        """Record the tokens the rule's outputs carry (once, as in JAX)."""
        if self.tokens_out is not None:
            raise JAXValueError("Should only set `tokens_out` once.")
        if len(tokens_out):
            raise JAXValueError(
                f"the lowering rule of {getattr(self.primitive, 'name', '?')} set tokens of "
                f"effects {sorted(map(str, tokens_out.effects()))}: astjax runs rules "
                "written with MLIR builders without ordered effects",
                hint="thread the effect's state through the primitive's operands and "
                     "results instead")
        self.tokens_out = tokens_out

    def replace(self, **kw):
        """A copy with fields `kw` replaced (e.g. other `avals_in` for `lower_fun`)."""
        return dataclasses.replace(self, **kw)

    def is_forward_compat(self) -> bool:
        """JAX's forward-compatibility lowering mode: never, in astjax."""
        return False


def _flat_values(out):
    """A rule's result (a Value, an op, or a nested sequence of them) as Values."""
    if isinstance(out, ir.Value):
        return [out]
    if isinstance(out, (ir.OpView, ir.Operation)):
        return list(out.results)
    if isinstance(out, (list, tuple)) or hasattr(out, "__len__"):   # (OpResultList too)
        return [v for i in range(len(out)) for v in _flat_values(out[i])]
    raise TypeError(f"a lowering rule returned {type(out).__name__}, not MLIR values")


def _reserve(mb, prefix, prim_name) -> tuple[int, str]:
    """A slot in `mb.functions` and a module-unique private function name for it
    (reserved first, so functions made while this one is built get other names)."""
    k = len(mb.functions)
    mb.functions.append("")
    return k, f"{prefix}_{k}_" + "".join(c if c.isalnum() else "_" for c in prim_name)


def lower_fun_with_builders(ctx: LoweringRuleContext, fun, multiple_results, args, params):
    """`mlir.lower_fun(fun, multiple_results)(ctx, *args, **params)` inside a builder
    rule: `fun(*xs, **params)` is staged on `ctx.avals_in`, lowered by astjax into a
    private function of the module, and called here on the MLIR values `args`.
    Returns the outputs' `ir.Value`s, one per output (JAX's result)."""
    def staged(*xs):
        out = fun(*xs, **params)
        return list(out) if multiple_results else [out]
    closed = core.stage(staged, list(ctx.avals_in))
    mb = ctx._builder
    k, name = _reserve(mb, "astjax_lower_fun", getattr(fun, "__name__", "fun"))
    sub = ModuleBuilder()
    sub.host_callbacks, sub.functions = mb.host_callbacks, mb.functions
    sub.called, sub.symbols = mb.called, mb.symbols   # (inner `jit` functions)
    sub.decls = mb.decls
    arg_names = [f"%arg{i}" for i in range(len(ctx.avals_in))]
    for n, a in zip(arg_names, ctx.avals_in):
        sub.types[n] = tensor_type(a)
    consts = [sub.constant(np.asarray(c), core.get_aval(c)) for c in closed.consts]
    outs = lower_jaxpr(sub, closed.jaxpr, consts, arg_names, ctx.platform)
    out_avals = [v.aval for v in closed.jaxpr.outvars]
    sub.emit(f"func.return {', '.join(outs)} : {', '.join(sub.types[o] for o in outs)}"
             if outs else "func.return")
    head = ", ".join(f"{n}: {sub.types[n]}" for n in arg_names)
    res = ", ".join(tensor_type(a) for a in out_avals)
    mb.functions[k] = (f"func.func private @{name}({head}) -> ({res}) {{\n"
                       + "\n".join(sub.lines) + "\n}")
    in_types = [aval_to_ir_type(a) for a in ctx.avals_in]
    out_types = [aval_to_ir_type(a) for a in out_avals]
    module = ctx.module_context.module
    # a declaration: the body is the text function above
    with ir.InsertionPoint.at_block_begin(module.body):
        decl = func_dialect.FuncOp(name, ir.FunctionType.get(in_types, out_types))
        decl.attributes["sym_visibility"] = ir.StringAttr.get("private")
    call = func_dialect.CallOp(out_types, ir.FlatSymbolRefAttr.get(name), list(args))
    return list(call.results)


def emit_python_callback(ctx: LoweringRuleContext, callback, token, operands, operand_avals,
                         result_avals, *, has_side_effect: bool, returns_token: bool = True,
                         partitioned: bool = False, sharding=None):
    """JAX's `mlir.emit_python_callback` inside a builder rule: a call of the Python
    function `callback(*operands as NumPy arrays)` while the program runs, whose
    results must have exactly `result_avals`' shapes and dtypes (JAX's RuntimeError
    otherwise). It is lowered as astjax lowers a `pure_callback` (an `io_callback`
    with `has_side_effect`): XLA's Python-callback custom call on the program's
    first device. Returns (result values, token, keepalive) as JAX does; astjax
    threads no effect tokens through builder rules (`token` must be None) and runs
    no partitioned callbacks."""
    if token is not None or partitioned or sharding is not None:
        what = ("an effect token" if token is not None else
                "partitioned=True" if partitioned else "a sharding")
        raise NotImplementedInAstjaxError(
            f"emit_python_callback with {what}: astjax lowers a builder rule's callback "
            "once, on the program's first device, without ordered effects",
            hint="call jax.pure_callback / jax.experimental.io_callback from the "
                 "primitive's lower_fun rule instead")
    result_avals = [core.ShapedArray(a.shape, a.dtype) for a in result_avals]

    def checked(*args):
        outs = callback(*args)
        if len(outs) != len(result_avals):
            raise RuntimeError("Mismatched number of outputs from callback. Expected: "
                               f"{len(result_avals)}, Actual: {len(outs)}")
        outs = [np.asarray(o) for o in outs]
        outs = [o.astype(dtypes.canonicalize(o.dtype)) for o in outs]
        for i, (o, a) in enumerate(zip(outs, result_avals)):
            if o.shape != a.shape:
                raise RuntimeError(f"Incorrect output shape for return value #{i}: "
                                   f"Expected: {a.shape}, Actual: {o.shape}")
            if o.dtype != a.dtype:
                raise RuntimeError(f"Incorrect output dtype for return value #{i}: "
                                   f"Expected: {a.dtype}, Actual: {o.dtype}")
        return outs
    host = HostCall(checked, result_avals)
    prim = io_callback_p if has_side_effect else pure_callback_p
    params = {"ordered": False} if has_side_effect else {"vmap_method": None}

    def call(*xs):
        return prim.bind(*xs, callback=host, **params)
    inner = ctx.replace(avals_in=list(operand_avals), avals_out=result_avals)
    outs = lower_fun_with_builders(inner, call, True, list(operands), {})
    return outs, None, host


def lower_with_builders(ctx, rule, prim, operands, params):
    """Run builder rule `rule` for one equation of `prim` (see the module docstring):
    the private function is added to `ctx.mb.functions` and the `func.call` emitted;
    returns the call's results (astjax SSA names)."""
    mb = ctx.mb
    k, name = _reserve(mb, "astjax_rule", prim.name)
    with new_context(), ir.Location.unknown():
        module = ir.Module.create()
        in_types = [aval_to_ir_type(a) for a in ctx.avals_in]
        out_types = [aval_to_ir_type(a) for a in ctx.avals_out]
        with ir.InsertionPoint(module.body):
            fn = func_dialect.FuncOp(name, ir.FunctionType.get(in_types, out_types))
            fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
            block = fn.add_entry_block()
        with ir.InsertionPoint(block):
            rule_ctx = LoweringRuleContext(
                module_context=ModuleContext(module.context, module, (ctx.platform,)),
                name_stack=NameStack(), primitive=prim, avals_in=list(ctx.avals_in),
                avals_out=list(ctx.avals_out), tokens_in=TokenSet(), _builder=mb)
            outs = _flat_values(rule(rule_ctx, *block.arguments, **params))
            if len(outs) != len(out_types):
                raise ValueError(f"the lowering rule of {prim.name} returned {len(outs)} "
                                 f"values for {len(out_types)} results")
            func_dialect.ReturnOp(outs)
        if not module.operation.verify():
            raise ValueError(f"the lowering rule of {prim.name} built an invalid function")
        mb.functions[k] = str(fn)
    return mb.op("func.call", list(operands), list(ctx.avals_out), {"callee": f"@{name}"})
