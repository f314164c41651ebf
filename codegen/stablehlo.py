"""Jaxpr -> StableHLO module text.

Every op is printed in MLIR's generic form (`"stablehlo.add"(%a, %b) : (...) -> ...`),
so one emitter serves every primitive; `Primitive.lowering` rules receive a
`RuleContext` and SSA names, and return SSA names. Several results are returned
as several function results, never as a tuple.
"""
from __future__ import annotations

import contextlib
import contextvars
import math
import re
import warnings

import numpy as np

from astjax import core, dtypes, sharding_impls, tree_util
from astjax.errors import (AstjaxError, JAXValueError, NotImplementedInAstjaxError,
                           RuntimeDTypeError, format_location)
from astjax.util import Namer
from astjax.primitives import effects
from astjax.primitives.base import private_function
from . import compute_on, dynamic_shapes

def _narrow_type(name):
    """MLIR's element type for an ml_dtypes name: float8_e4m3fn -> f8E4M3FN, int4 -> i4."""
    if name.startswith("float"):
        bits, rest = name[len("float"):].split("_", 1)
        return f"f{bits}{rest.upper()}"
    return name.replace("uint", "ui").replace("int", "i")


_ELT = {dtypes.bool_: "i1", dtypes.int8: "i8", dtypes.int16: "i16", dtypes.int32: "i32",
        dtypes.int64: "i64", dtypes.uint8: "ui8", dtypes.uint16: "ui16",
        dtypes.uint32: "ui32", dtypes.uint64: "ui64", dtypes.bfloat16: "bf16",
        dtypes.float16: "f16", dtypes.float32: "f32", dtypes.float64: "f64",
        dtypes.complex64: "complex<f32>", dtypes.complex128: "complex<f64>",
        **{d: _narrow_type(d.name) for d in dtypes.NARROW_FLOATS + dtypes.NARROW_INTS},
        core.float0: "i1"}   # (a float0 tangent is lowered as booleans, as JAX does)


_SSA_DEF = re.compile(r"\s*%(\d+)(?::\d+)? = ")
_DYNAMIC_FORMS = dynamic_shapes.DYNAMIC_FORMS
_Literal = core.Literal


def elt_type(dtype) -> str:
    return _ELT[np.dtype(dtype)]


_TENSOR_TYPES: dict = {}   # (shape, dtype) -> its type text: one per op result


def tensor_type(aval) -> str:
    key = (aval.shape, aval.dtype)
    t = _TENSOR_TYPES.get(key)
    if t is None or type(aval) is core.TokenAval:
        if type(aval) is core.TokenAval:   # (its key is bool[]'s)
            return "!stablehlo.token"
        if len(_TENSOR_TYPES) >= 4096:   # (a bounded cache: programs of many shapes)
            _TENSOR_TYPES.clear()
        dims = "".join(f"{d}x" if type(d) is int else "?x" for d in aval.shape)
        t = _TENSOR_TYPES[key] = f"tensor<{dims}{elt_type(aval.dtype)}>"
    return t


def dense_attr(value, aval) -> str:
    """`dense<...> : tensor<...>` for a NumPy value (raw little-endian bytes)."""
    if aval.dtype == core.float0:   # (no bytes: all false, JAX's zeros)
        return f"dense<false> : {tensor_type(aval)}"
    v = np.ascontiguousarray(np.asarray(value, aval.dtype).reshape(aval.shape))
    if aval.dtype == dtypes.bool_:
        flat = v.reshape(-1)
        if flat.size and (flat == flat[0]).all():
            body = "true" if flat[0] else "false"
        else:
            body = '"0x' + flat.astype(np.uint8).tobytes().hex().upper() + '"'
        return f"dense<{body}> : {tensor_type(aval)}"
    flat = v.reshape(-1)
    b = flat.view(np.uint8).reshape(flat.size, -1) if flat.size > 1 else None
    # (a splat: one element's bytes; the first two elements tell most arrays apart
    # without comparing every element)
    if b is not None and (b[1] == b[0]).all() and (b == b[0]).all():
        flat = flat[:1]
    if flat.dtype.byteorder == ">":
        flat = flat.astype(flat.dtype.newbyteorder("<"))
    raw = memoryview(flat.view(np.uint8)).hex()   # (no copy of the array's bytes)
    # MLIR prints hex digits in upper case and reads either: a large array's (a
    # closed-over constant, `lower_module(embedded=)`) are left as they come
    return f'dense<"0x{raw.upper() if len(raw) <= _UPPER_HEX else raw}"> : {tensor_type(aval)}'


_UPPER_HEX = 1 << 16


def i64_array(xs) -> str:
    xs = list(xs)
    return f"array<i64{': ' if xs else ''}{', '.join(str(int(x)) for x in xs)}>"


def bool_array(xs) -> str:
    xs = list(xs)
    return f"array<i1{': ' if xs else ''}{', '.join('true' if x else 'false' for x in xs)}>"


class ModuleText(str):
    """A lowered module's StableHLO text; `host_callbacks` lists the Python functions
    its host-callback custom calls reach, in the order of their `index` attribute
    (they are handed to XLA when the module is compiled); `origins` remembers which
    equation made each SSA value (`origin_of`), so that an error XLA reports at a line
    of the text can name the user's line."""
    host_callbacks: tuple = ()
    origins: list = []
    refine: bool = False   # (calls a shape-polymorphic export: jaxlib refines it first)


class ModuleBuilder:
    def __init__(self):
        self.names = Namer("ssa")  # %0, %1, ...
        self.lines: list[str] = []
        self.types: dict[str, str] = {}
        self.indent = 4
        self.host_callbacks: list = []
        # private functions beside `main` (lowering rules written with MLIR builders,
        # codegen/mlir_builders.py), as printed text
        self.functions: list[str] = []
        # (first, end, eqn): the SSA numbers first..end-1 were made by eqn's rule
        self.origins: list = []
        # symbolic dimension variable -> its tensor<i32> value (jax.export's shape
        # polymorphism, codegen/dynamic_shapes.py); `refine` marks a module that needs
        # jaxlib's shape refinement before it compiles (it calls such an export)
        self.dim_values: dict = {}
        self.refine = False
        # inner `jit` bodies lowered as private functions: (Jaxpr, consts ids) -> symbol,
        # and the symbol names taken (`RuleContext.call_function`)
        self.called: dict = {}
        self.symbols = Symbols({"main"})
        # module-level declarations a rule needs outside a partitioned program (a host
        # callback's maximal `sdy.mesh`): symbol -> line
        self.decls: dict = {}
        # ordered effect -> its current `!stablehlo.token` (primitives/effects.py)
        self.tokens: dict = {}

    def dim_value(self, e) -> str:
        """A `tensor<i32>` holding dimension `e` (an int or a symbolic dimension)."""
        return dynamic_shapes.dim_value(self, e)

    def host_callback(self, fn) -> int:
        """Register a Python function for a host-callback custom call: its index."""
        self.host_callbacks.append(fn)
        return len(self.host_callbacks) - 1

    def fresh(self, typ) -> str:
        names = self.names   # (Namer("ssa").fresh, without its style dispatch)
        name = f"%{names.counter}"
        names.counter += 1
        self.types[name] = typ
        return name

    def emit(self, line):
        self.lines.append(" " * self.indent + line)

    def op(self, name, operands, out_avals, attrs=None, regions=None):
        # the hot path of lowering (issue 14): one result, no regions, written out
        if name in _DYNAMIC_FORMS and dynamic_shapes.is_dynamic(out_avals[0]):
            return [dynamic_shapes.dynamic_op(self, name, operands, out_avals[0], attrs)]
        types = self.types
        attr = (" {" + ", ".join([f"{k} = {v}" for k, v in attrs.items()]) + "}") if attrs else ""
        if len(out_avals) == 1 and not regions:
            t = tensor_type(out_avals[0])
            names = self.names
            base = f"%{names.counter}"
            names.counter += 1
            types[base] = t
            self.lines.append(f'{" " * self.indent}{base} = "{name}"({", ".join(operands)}){attr} : '
                              f'({", ".join([types[o] for o in operands])}) -> {t}')
            return [base]
        out_types = [tensor_type(a) for a in out_avals]
        in_types = [types[o] for o in operands]
        reg = ""
        if regions:
            reg = " (" + ", ".join(regions) + ")"
        res_t = out_types[0] if len(out_types) == 1 else f"({', '.join(out_types)})"
        sig = f"({', '.join(in_types)}) -> {res_t}"
        args = ", ".join(operands)
        if not out_avals:
            self.emit(f'"{name}"({args}){reg}{attr} : {sig}')
            return []
        base = self.fresh(out_types[0])
        if len(out_avals) == 1:
            self.emit(f'{base} = "{name}"({args}){reg}{attr} : {sig}')
            return [base]
        del types[base]
        self.emit(f'{base}:{len(out_avals)} = "{name}"({args}){reg}{attr} : {sig}')
        outs = [f"{base}#{i}" for i in range(len(out_avals))]
        for o, t in zip(outs, out_types):
            types[o] = t
        return outs

    def constant(self, value, aval) -> str:
        """A `stablehlo.constant` of `value`, written at each use as JAX's
        `ir_constant` writes a literal (XLA's compile merges equal ones)."""
        if dynamic_shapes.is_dynamic(aval):
            return dynamic_shapes.splat_constant(self, value, aval)
        t = tensor_type(aval)   # (written out, not by `op`: a large one is copied less)
        name = self.fresh(t)
        self.lines.append(f'{" " * self.indent}{name} = "stablehlo.constant"() '
                          f'{{value = {dense_attr(value, aval)}}} : () -> {t}')
        return name

    def region(self, arg_avals, body, terminator="stablehlo.return") -> str:
        """A region whose block takes `arg_avals`; `body(*args)` returns SSA results
        (ended by `terminator`: `sdy.return` in a Shardy manual computation)."""
        saved_lines, saved_indent, tokens = self.lines, self.indent, self.tokens
        self.lines, self.indent = [], saved_indent + 4
        if tokens:   # (a token made inside is not seen outside: the rule passes it out)
            self.tokens = dict(tokens)
        args = [self.fresh(tensor_type(a)) for a in arg_avals]
        outs = body(*args)
        self.op(terminator, list(outs), [])
        inner = self.lines
        self.lines, self.indent, self.tokens = saved_lines, saved_indent, tokens
        head = ", ".join(f"{a}: {self.types[a]}" for a in args)
        pad = " " * (saved_indent + 2)
        label = f"{pad}^bb0({head}):\n" if args else ""
        return "{\n" + label + "\n".join(inner) + "\n" + " " * saved_indent + "}"


class RuleContext:
    """What a lowering rule sees: the module being built and its equation's avals."""

    def __init__(self, mb: ModuleBuilder, avals_in, avals_out, platform="cpu"):
        self.mb, self.avals_in, self.avals_out = mb, avals_in, avals_out
        self.platform = platform

    def op(self, name, operands, out_avals=None, attrs=None, regions=None):
        return self.mb.op(name, list(operands), self.avals_out if out_avals is None else out_avals,
                          attrs, regions)

    def op1(self, name, operands, out_aval=None, attrs=None, regions=None):
        return self.op(name, operands, [out_aval or self.avals_out[0]], attrs, regions)[0]

    def constant(self, value, aval):
        return self.mb.constant(value, aval)

    i64 = staticmethod(i64_array)
    elt = staticmethod(elt_type)
    bools = staticmethod(bool_array)
    type = staticmethod(tensor_type)
    dense = staticmethod(dense_attr)

    def region(self, arg_avals, body, terminator="stablehlo.return"):
        return self.mb.region(arg_avals, body, terminator)

    def shape_value(self, shape) -> str:
        """A `tensor<Nxi32>` of `shape`'s sizes, symbolic ones computed from the
        module's dimension variables (codegen/dynamic_shapes.py)."""
        return dynamic_shapes.shape_value(self.mb, shape)

    def host_callback(self, fn) -> int:
        """The index under which the compiled module reaches Python function `fn`."""
        return self.mb.host_callback(fn)

    def broadcast(self, x, aval_in, aval_out):
        """Broadcast a rank-0 (or equal-rank) operand to `aval_out`'s shape."""
        if aval_in.shape == aval_out.shape:
            return x
        dims = range(len(aval_out.shape) - len(aval_in.shape), len(aval_out.shape))
        out = aval_out if aval_out.dtype == aval_in.dtype else aval_out.update(dtype=aval_in.dtype)
        return self.mb.op("stablehlo.broadcast_in_dim", [x], [out],
                          {"broadcast_dimensions": i64_array(dims) if dims else "array<i64>"})[0]

    def lower_jaxpr(self, jaxpr, consts, args):
        return lower_jaxpr(self.mb, jaxpr, consts, args, self.platform)

    def call_function(self, name, closed, args):
        """`func.call` of `closed` lowered once per module (per jaxpr object) as a
        private function named after `name`, unique in the module as MLIR's symbol
        table makes it (`g`, `g_0`, ...): JAX's lowering of an inner `jit`. In a module
        with symbolic dimensions it takes the dimension variables' values first."""
        mb = self.mb
        consts = closed.consts
        dims = list(mb.dim_values)
        # (a body lowered inside a shard_map's manual computation lowers its collectives
        # over the manual axes: one function per context)
        key = (closed.jaxpr, tuple(map(id, consts)), id(sharding_impls.current_manual_mesh()))
        sym = mb.called.get(key)
        effs = effects.threaded(self, closed)   # (its ordered effects' tokens: first)
        if sym is None:
            sym = mb.called[key] = _unique_symbol(mb, name)
            private_function(self, closed, lambda slot: sym[1:], dims, effs)   # (sym: `@name`)
        outs = mb.op("func.call", [*(mb.dim_values[v] for v in dims),
                                   *effects.current(self, effs), *args],
                     effects.token_avals(effs) + list(self.avals_out), {"callee": sym})
        effects.advance(self, effs, outs[:len(effs)])
        return outs[len(effs):]


class Symbols:
    """The function names taken in one module, and MLIR's uniquing counter (shared by
    the builders that write functions of one module)."""

    def __init__(self, taken=()):
        self.taken, self.counter = set(taken), 0


def _unique_symbol(mb, name) -> str:
    """`@name` (quoted when it is not an identifier: `@"<lambda>"`), renamed as MLIR
    renames a clashing symbol: `name_<n>` with one counter for the whole module."""
    base = name = str(name)
    symbols = mb.symbols
    while name in symbols.taken:
        name = f"{base}_{symbols.counter}"
        symbols.counter += 1
    symbols.taken.add(name)
    ok = name[:1].isalpha() or name[:1] == "_"
    ok = ok and all(c.isalnum() or c in "_$." for c in name)
    return f"@{name}" if ok else '@"' + name.replace('"', '\\"') + '"'


def _always():
    return True


# StableHLO operations take no unsigned 1-bit integers (`ui1`; `i1` is bool): JAX's
# lowering of any operation on uint1 fails MLIR verification with a ValueError.
_NO_OPERATION_TYPES = frozenset(d for d in dtypes.NARROW_INTS if d.name == "uint1")


def _check_op_types(eqn, ctx):
    for a in [*ctx.avals_in, *ctx.avals_out]:
        if getattr(a, "dtype", None) in _NO_OPERATION_TYPES:
            raise JAXValueError(
                f"Cannot lower `{eqn.primitive.name}` on {a.str_short(True)}: StableHLO operations "
                f"have no {_ELT[a.dtype]} element type (verifier error)",
                loc=eqn.source_info if getattr(eqn.source_info, "file", None) else None,
                hint="convert through a wider integer outside the program, e.g. "
                     "np.asarray(x).astype(np.uint8), or use bool")


def lower_jaxpr(mb: ModuleBuilder, jaxpr: core.Jaxpr, consts, args, platform="cpu",
                embedded=()):
    """Lower `jaxpr`'s equations into `mb` with its constvars bound to the SSA names
    `consts` and its invars to `args`; return its results' SSA names. `embedded`:
    (var, value) pairs of the values the module carries as `stablehlo.constant`s (the
    consts of a `jit`'s program, `embedded_constants`), emitted first."""
    env = {}

    def read(a):
        if type(a) is _Literal:
            return mb.constant(a.val, a.aval)
        return env[a]

    written = {}   # (one constant per value, as JAX's `unique_consts`)
    for v, x in embedded:
        key = (id(x), v.aval)
        if key not in written:
            written[key] = mb.constant(np.asarray(x), v.aval)
        env[v] = written[key]
    for v, x in zip(jaxpr.constvars, consts):
        env[v] = x
    for v, x in zip(jaxpr.invars, args):
        env[v] = x
    names, origins, constant = mb.names, mb.origins, mb.constant
    for eqn in jaxpr.eqns:
        prim = eqn.primitive
        rule = prim.lowering
        if rule is None or not getattr(rule, "available", _always)():
            # extension primitives (an impl lowers only in eager transformations,
            # astjax.extend.core): JAX's exact class, located by a note
            missing = getattr(prim, "missing_rule_error", None)
            if missing is None:
                raise NotImplementedInAstjaxError(f"primitive {prim.name} has no "
                                                  "StableHLO lowering", loc=eqn.source_info)
            err = missing("lowering", platform)
            err.add_note(format_location(eqn.source_info).rstrip())
            raise err
        # (one loop per equation for the avals and the uint1 check: issue 14)
        avals_in = [a.aval for a in eqn.invars]
        avals_out = [v.aval for v in eqn.outvars]
        ctx = RuleContext(mb, avals_in, avals_out, platform)
        for a in avals_in + avals_out:
            if getattr(a, "dtype", None) in _NO_OPERATION_TYPES:
                _check_op_types(eqn, ctx)
        first = names.counter
        placed = getattr(eqn.source_info, "compute_type", None)   # (codegen/compute_on.py)
        start = len(mb.lines) if placed is not None else 0
        try:
            outs = rule(ctx, *[constant(a.val, a.aval) if type(a) is _Literal else env[a]
                               for a in eqn.invars], **eqn.params)
        except AstjaxError as e:  # a rule's check is about its equation: the user's line
            if getattr(eqn.source_info, "file", None):
                e.loc = eqn.source_info
                e.args = (str(e),)
            raise
        origins.append((first, names.counter, eqn))
        if placed is not None:
            compute_on.tag(mb.lines, start, [outs] if isinstance(outs, str) else outs, placed)
        if prim.multiple_results:
            for v, o in zip(eqn.outvars, outs):
                env[v] = o
        elif isinstance(outs, str):
            env[eqn.outvars[0]] = outs
        else:
            for v, o in zip(eqn.outvars, outs):
                env[v] = o
    return [read(a) for a in jaxpr.outvars]


def _maker(origins, n: int):
    """The equation of the narrowest lowering rule that made SSA value `%n`, or None."""
    hits = [(end - first, eqn) for first, end, eqn in origins if first <= n < end]
    return min(hits, key=lambda h: h[0])[1] if hits else None


def origin_of(text, line: int):
    """The equation whose lowering wrote `line` (1-based) of `text`, or None: the
    narrowest rule that made the first SSA value defined on or above that line."""
    origins = getattr(text, "origins", None)
    lines = str(text).split("\n")
    if not origins or not 1 <= line <= len(lines):
        return None
    for k in range(line - 1, -1, -1):
        m = _SSA_DEF.match(lines[k])
        if m:
            return _maker(origins, int(m.group(1)))
    return None


# dtypes jaxlib's CPU runtime has no buffers or kernels for (JAX fails on them alike)
NO_RUNTIME_TYPES = frozenset(d for d in dtypes.NARROW_FLOATS if d.name.startswith("float6"))


def check_runtime_dtype(dtype):
    """Raise JAX's JaxRuntimeError (located) for a host value of a dtype jaxlib has no
    buffers for, before it reaches jaxlib."""
    if dtype in NO_RUNTIME_TYPES:
        raise RuntimeDTypeError(f"INVALID_ARGUMENT: Unknown NumPy dtype {dtype}: jaxlib has no "
                                f"{dtype} buffers (as under JAX)")


def _mlir_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def embedded_constants(closed, device_types=()):
    """(`closed` keeping only the consts that stay `@main` parameters, ((constvar,
    value), ...) of those its module carries as `stablehlo.constant`s:
    `lower_module(embedded=)`), as JAX 0.10.2 lowers a jitted function's closed-over
    values: every NumPy value and every array on one device (of `device_types`,
    exactly: astjax's Arrays, committed or not), of any size, is a constant of the
    module (`jax_use_simplified_jaxpr_constants` is off: nothing is hoisted), so XLA
    folds what is computed from them alone at compile time -- a sum of a closed-over
    array is summed in its evaluator's order, not the runtime kernel's. What stays a
    parameter: a staged value of an enclosing staging (JAX's `separate_consts`), and
    values of a type astjax prints no constant of (PRNG keys, arrays laid out over
    several devices). The values are read when the module is lowered, as JAX's
    `ir_constant` reads them; the program's equations still read the embedded vars.
    Under `constants_as_parameters()` nothing is embedded."""
    jaxpr = closed.jaxpr
    if _AS_PARAMETERS.get():
        return closed, ()
    embed = [(isinstance(c, _HOST_VALUES) or type(c) in device_types)
             and type(v.aval) is core.ShapedArray and v.aval.dtype in _ELT
             for v, c in zip(jaxpr.constvars, closed.consts)]
    if not any(embed):
        return closed, ()
    kept = [i for i, e in enumerate(embed) if not e]
    program = core.Jaxpr([jaxpr.constvars[i] for i in kept], jaxpr.invars, jaxpr.outvars,
                         jaxpr.eqns)
    return (core.ClosedJaxpr(program, [closed.consts[i] for i in kept]),
            tuple((v, c) for v, c, e in zip(jaxpr.constvars, closed.consts, embed) if e))


_HOST_VALUES = (np.ndarray, np.generic, bool, int, float, complex)
_AS_PARAMETERS = contextvars.ContextVar("astjax_constants_as_parameters", default=False)


@contextlib.contextmanager
def constants_as_parameters(on=True):
    """While `on`, the programs made keep every closed-over value a parameter of
    `@main` (`embedded_constants` embeds none): the programs of eager transformations
    (`grad(f)(x)` outside `jit`), which JAX runs op by op with every value an operand,
    so that XLA folds nothing there either. Off, it changes nothing (and sets no
    context variable: that would replace the context's mapping, freeing the one a
    user's `gc.freeze()` froze)."""
    if not on:
        yield
        return
    token = _AS_PARAMETERS.set(True)
    try:
        yield
    finally:
        _AS_PARAMETERS.reset(token)


def with_locations(text) -> str:
    """`text` (a lowered module) with MLIR locations: every op whose equation has a
    source line ends in `loc(#locN)`, and `#locN = loc("primitive"("file":line:col))`
    aliases (`"scope/primitive"` inside `named_scope`s or transformations: the
    equation's name stack, relative to its body; JAX's names also begin with `jit(f)/`
    and a body's path) are declared before the module -- what JAX prints for
    `lowered.as_text(debug_info=True)`. XLA keeps them as the ops' metadata. An op
    with regions (`case`, `while`) carries its location after its last region."""
    origins = getattr(text, "origins", None)
    if not origins:
        return str(text)
    aliases: dict = {}

    def alias(eqn):
        info = getattr(eqn, "source_info", None)
        if info is None or info.file is None or info.line is None:
            return None
        ns = getattr(info, "name_stack", None)   # (JAX's `scope/primitive` names)
        name = f"{ns}/{eqn.primitive.name}" if ns else eqn.primitive.name
        loc = (f"loc({_mlir_string(name)}({_mlir_string(info.file)}:"
               f"{info.line}:{(info.col or 0) + 1}))")
        return aliases.setdefault(loc, f"#loc{len(aliases) + 1}")

    out, waiting = [], []   # waiting: (indent, alias) of ops whose regions are open
    for ln in str(text).split("\n"):
        body = ln.lstrip()
        indent = len(ln) - len(body)
        if waiting and body.startswith("})") and indent == waiting[-1][0]:
            loc = waiting.pop()[1]
        else:
            m = _SSA_DEF.match(ln)
            loc = alias(_maker(origins, int(m.group(1)))) if m else None
            if ln.endswith("({"):
                waiting.append((indent, loc))
                loc = None
        out.append(f"{ln} loc({loc})" if loc else ln)
    head = [f"{name} = {loc}" for loc, name in aliases.items()]
    return "\n".join(head + out)


def result_names(out_tree, drop=()):
    """The `jax.result_info` name of each result leaf of `out_tree` (JAX's: `result`
    followed by the leaf's key path, a flat index printed as `[i]`), without the
    positions in `drop`."""
    names = ["result" + "".join(f"[{k.key}]" if isinstance(k, tree_util.FlattenedIndexKey)
                                else str(k) for k in path)
             for path in tree_util.treedef_paths(out_tree)]
    drop = set(drop)
    return [n for i, n in enumerate(names) if i not in drop]


def mlir_string(text):
    """`text`'s UTF-8 bytes as the body of an MLIR string literal: printable ASCII
    as is, a backslash doubled, `"` and every other byte as `\\XX` (MLIR's printer)."""
    out = []
    for b in text.encode("utf-8"):
        c = chr(b)
        if c == "\\":
            out.append("\\\\")
        elif 0x20 <= b < 0x7F and c != '"':
            out.append(c)
        else:
            out.append(f"\\{b:02X}")
    return "".join(out)


LOWERING_PLATFORMS = ("cpu", "cuda", "rocm", "tpu")


def platform_name(device) -> str:
    """The lowering platform of `device` (a jaxlib Device): its `platform`, with
    jaxlib's "gpu" told apart as "cuda" or "rocm" by the client's platform version."""
    name = device.platform
    if name == "gpu":
        version = str(getattr(device.client, "platform_version", "")).lower()
        name = "rocm" if "rocm" in version else "cuda"
    return name


def module_symbol(name) -> str:
    """A module's name as JAX writes it: characters other than word characters, '.'
    and '-' as `_`, trailing `_` dropped (`jit(<lambda>)` -> `jit__lambda`), quoted
    as MLIR prints a name that is not a bare identifier (`"jit_f-g"`)."""
    safe = re.sub(r"[^\w.-]", "_", name).rstrip("_") or "_"
    return safe if re.fullmatch(r"[A-Za-z_][\w$.]*", safe, re.ASCII) else \
        f'"{mlir_string(safe)}"'


def check_platform(platform) -> str:
    """`platform` (a `lowering_platforms` entry) as a lowering platform name, verbatim
    as JAX takes it: a name other than `LOWERING_PLATFORMS` ('tpu2', 'CPU') lowers
    with the platform-independent rules only (what has none is JAX's
    NotImplementedError then, and `platform_dependent` takes its default branch)."""
    if not isinstance(platform, str):
        raise JAXValueError(f"lowering platform {platform!r} is not a string",
                            hint="name it: 'cpu', 'cuda', 'rocm' or 'tpu'")
    return platform


def donation_attributes(in_avals, out_avals, donated) -> dict:
    """The `@main` argument attribute of each donated argument (index -> text), as JAX
    pairs donations with results on one device: each donated argument takes the first
    free result of its shape and dtype (`tf.aliasing_output = k`: XLA writes that
    result into the donated buffer), then the first free result of its size
    (`jax.buffer_donor = true`: XLA may reuse it); an argument with neither is not
    donated (its buffer stays valid) and JAX's "Some donated buffers were not usable"
    warning names it."""
    def key(a):
        return tuple(a.shape), np.dtype(a.dtype)
    outs = list(out_avals)
    free = [j for j, a in enumerate(outs) if type(a) is not core.TokenAval]
    attrs, unused = {}, []
    for i in sorted(donated):
        k = next((j for j in free if key(outs[j]) == key(in_avals[i])), None)
        if k is not None:
            free.remove(k)
            attrs[i] = f"tf.aliasing_output = {k} : i32"
    for i in sorted(set(donated) - set(attrs)):
        size = math.prod(in_avals[i].shape)
        k = next((j for j in free if math.prod(outs[j].shape) == size), None)
        if k is None:
            unused.append(i)
            continue
        free.remove(k)
        attrs[i] = "jax.buffer_donor = true"
    if unused:
        names = ", ".join(str(core.ShapedArray(in_avals[i].shape, in_avals[i].dtype))
                          for i in unused)
        warnings.warn(f"Some donated buffers were not usable: {names}.\nSee an explanation "
                      "at https://docs.jax.dev/en/latest/faq.html#buffer-donation.",
                      stacklevel=2)
    return attrs


def lower_module(jaxpr: core.Jaxpr, name="main_fn", num_replicas=1, donated=(),
                 platform="cpu", num_partitions=1, arg_shardings=None,
                 result_shardings=None, preamble=None, result_names=None,
                 tokens=False, result_hook=None, ordered=(), embedded=()) -> str:
    """A whole module: constvars then invars become the function's arguments.
    `result_names` (one per result, e.g. `result['a'][0]`) become the results'
    `jax.result_info` attributes, as JAX prints them.
    `arg_shardings` / `result_shardings` (SPMD programs, `codegen.spmd`): one
    sharding attribute (`mhlo.sharding = "..."` or `sdy.sharding = ...`) or None per
    argument (constvars first) / result; `preamble()`, called after the body is
    lowered, gives module-level lines (Shardy's `sdy.mesh` declarations).
    `tokens`: token arguments and results are allowed (`!stablehlo.token`, as JAX
    types them; `astjax/jit_tokens.py` and partitioned programs, `codegen/spmd.py`,
    run such modules); the other callers (pmap) refuse them. `result_hook(mb, outs)`: the values
    returned instead of the body's `outs` (`codegen/host_memory.py`'s placements).
    `ordered`: the ordered effects whose tokens `@main` takes and returns first, as
    JAX's (`{jax.token = true}`; primitives/effects.py, astjax/jit_ordered.py).
    `embedded`: (var, value) of the closed-over values `@main` carries as constants
    rather than parameters (vars the equations read beside `jaxpr.constvars`)."""
    if not tokens and any(type(v.aval) is core.TokenAval
                          for v in (*jaxpr.invars, *jaxpr.outvars)):
        raise NotImplementedInAstjaxError(
            "a token (from lax.create_token, lax.after_all or an ffi_call's token result) "
            "as an argument or a result of a pmap is not supported by astjax (a jit takes "
            "and returns them)",
            hint="create and thread tokens inside the function, and return arrays")
    mb = ModuleBuilder()
    params = jaxpr.constvars + jaxpr.invars
    # (an aliased result's index counts the effects' tokens returned first, as JAX's)
    donors = (donation_attributes([v.aval for v in params], [core.abstract_token] * len(
                                  ordered) + [v.aval for v in jaxpr.outvars], donated)
              if num_partitions == 1 and arg_shardings is None
              else dict.fromkeys(donated, "jax.buffer_donor = true"))
    arg_names = []
    nt = len(ordered)
    mb.tokens = {e: f"%arg{k}" for k, e in enumerate(ordered)}
    sig = [f"%arg{k}: !stablehlo.token {{jax.token = true}}" for k in range(nt)]
    mb.types.update((f"%arg{k}", "!stablehlo.token") for k in range(nt))
    for i, v in enumerate(params):
        n = f"%arg{i + nt}"
        t = tensor_type(v.aval)
        mb.types[n] = t
        arg_names.append(n)
        attrs = [donors[i]] if i in donors else []
        if arg_shardings is not None and arg_shardings[i] is not None:
            attrs.append(arg_shardings[i])
        attr = " {" + ", ".join(attrs) + "}" if attrs else ""
        sig.append(f"{n}: {t}{attr}")
    nc = len(jaxpr.constvars)
    if any(dynamic_shapes.is_dynamic(v.aval) for v in params):   # (symbolic shapes)
        dynamic_shapes.dimension_values(mb, [v.aval for v in params], arg_names)
    with core.collector_paused():   # lines and SSA names: no cycles (issue 14)
        outs = lower_jaxpr(mb, jaxpr, arg_names[:nc], arg_names[nc:], platform, embedded)
        if result_hook is not None:
            outs = result_hook(mb, outs)
    outs = [*mb.tokens.values(), *outs]
    out_types = [mb.types[o] for o in outs]
    mb.emit(f"func.return {', '.join(outs)} : {', '.join(out_types)}" if outs else "func.return")
    res_attrs = [["jax.token = true"] if k < nt else [] for k in range(len(out_types))]
    if result_names is not None and len(result_names) == len(out_types) - nt:
        for attrs, n in zip(res_attrs[nt:], result_names):
            attrs.append(f'jax.result_info = "{mlir_string(n)}"')
    if result_shardings is not None:
        for attrs, h in zip(res_attrs[nt:], result_shardings):
            if h is not None:
                attrs.append(h)
    res_types = [f"{t} {{{', '.join(a)}}}" if a else t for t, a in zip(out_types, res_attrs)]
    decls = [*(preamble() if preamble else ()), *mb.decls.values()]
    head = (f"module @{module_symbol(name)} attributes {{mhlo.num_partitions = "
            f"{num_partitions} : i32, "
            f"mhlo.num_replicas = {num_replicas} : i32}} {{\n"
            + "".join(f"  {line}\n" for line in decls) +
            f"  func.func public @main({', '.join(sig)})"
            + (f" -> ({', '.join(res_types)})" if res_types else "") + " {\n")
    funcs = "".join("\n".join("  " + ln for ln in f.splitlines()) + "\n" for f in mb.functions)
    # (one join: a module carrying a large constant is copied as few times as it can be)
    text = ModuleText("\n".join([head[:-1], *mb.lines, "  }\n" + funcs + "}\n"]))
    text.host_callbacks = tuple(mb.host_callbacks)
    text.origins = mb.origins
    if mb.refine:
        text.refine = True
    return text
