"""User-facing errors: every one names file:line:col, shows the source line with a
caret, says what went wrong and how to fix it.

Errors raised while staging find the user's location themselves by walking the
Python stack for the innermost frame running converted user code (see
`frontend.registry`); errors about IR carry the `SourceInfo` of the equation.
"""
from __future__ import annotations

import inspect
import linecache
import sys
import types
import warnings

from jaxlib import _jax

from .name_stack import EMPTY as EMPTY_NAME_STACK
from .util import WeakIdMap

__all__ = [
    "AstjaxError", "ConcretizationError", "NonConcreteBooleanIndexError", "StagedSliceError",
    "UnsupportedSyntaxError", "ShapeError", "DTypeError", "UndefinedVariableError",
    "UnboundLocalVariableError",
    "LoopCarryError", "SourceNotFoundError", "SourceChangedError", "ArgumentError", "EscapedTracerError",
    "NotImplementedInAstjaxError", "MissingNameError", "AxisNameError", "SideEffectWarning",
    "NoSourceWarning",
    "ArgumentTypeError", "ArgumentValueError", "ArgumentIndexError", "ArgumentZeroDivisionError",
    "UnknownOptionError", "UnknownPathOptimizerError", "ArityError", "StructureError",
    "DifferentiationError", "DifferentiationTypeError", "DerivativeNotImplementedError",
    "DerivativeValueError", "UndefinedRuleError", "JAXTypeError",
    "JAXIndexError", "JAXValueError", "JAXAttributeError", "located_builtin_error",
    "ConcretizationTypeError", "TracerBoolConversionError", "TracerIntegerConversionError",
    "TracerArrayConversionError", "UnexpectedTracerError", "KeyReuseError", "JaxRuntimeError",
    "FfiTargetError", "FfiKernelError", "FfiKernelArgumentError", "BackendUnimplementedError",
    "user_location", "raised_location", "warn_at", "check_signature", "check_callable", "function_name",
    "ShapeValueError", "InternalError", "JaxprTypeError", "InconclusiveDimensionOperation",
]


class SourceInfo:
    """Where an equation or error comes from; `name` is the user's variable name and
    `phase` what a transform made of it ('forward', 'backward', 'tangent', 'batched'),
    used for comments in generated source; `compute_type` the `compute_on` block it
    was staged in (`astjax/compat/experimental/compute_on.py`), or None; `name_stack`
    the scopes and transformations it was staged in (`astjax/name_stack.py`);
    `made_untyped`: a value the equation makes from no operand has no Explicit type (it
    is not replicated over the context mesh: `astjax/primitives/untyped_made.py`)."""
    __slots__ = ("file", "line", "col", "end_col", "name", "phase", "compute_type",
                 "name_stack", "made_untyped")

    def __init__(self, file=None, line=None, col=None, end_col=None, name=None, phase=None,
                 compute_type=None, name_stack=EMPTY_NAME_STACK, made_untyped=False):
        self.file, self.line, self.col, self.end_col, self.name = file, line, col, end_col, name
        self.phase, self.compute_type, self.name_stack = phase, compute_type, name_stack
        self.made_untyped = made_untyped

    def replace(self, **kw):
        d = {k: getattr(self, k) for k in self.__slots__}
        d.update(kw)
        return SourceInfo(**d)

    def __repr__(self):
        return f"SourceInfo({self.file}:{self.line}:{self.col}, name={self.name!r})"

    def where(self):
        if self.file is None:
            return "<unknown>"
        return f"{self.file}:{self.line}:{(self.col or 0) + 1}"


UNKNOWN = SourceInfo()

# Code objects of converted user functions (-> True), by identity and weakly
# (`util.WeakIdMap`): `code in USER_CODE` never hashes a code object -- CPython walks a
# code object's names and constants per hash, and `user_location` asks once per frame
# per staged operation (issue 14: quadratic in statements). Filled by the front end.
USER_CODE = WeakIdMap()
_positions_cache = WeakIdMap()   # code -> its `co_positions()`
_LAZY = frozenset(("line", "col", "end_col"))


def _positions(code):
    """`code`'s position table, one entry per code unit, built once per code object."""
    pos = _positions_cache.get(code)
    if pos is None:
        pos = list(code.co_positions())
        _positions_cache[code] = pos
    return pos


class _FrameSourceInfo(SourceInfo):
    """The SourceInfo of one instruction of a code object (`lasti`, in bytes), whose
    line and columns are read from the code's position table when first asked for.
    Staging records one per operation, and a program that raises nothing reads none
    of them: the table of a long function's converted code (one entry per code unit,
    ~40,000 at 600 statements) cost ~15 ms of its first call (issue 14). Until then
    `line`, `col` and `end_col` are unset slots, so `__getattr__` runs only for them;
    once resolved they read as SourceInfo's own."""
    __slots__ = ("_code", "_lasti")

    def __init__(self, code, lasti, name=None, phase=None):
        self.file, self.name, self.phase = code.co_filename, name, phase
        self._code, self._lasti, self.compute_type = code, lasti, None
        self.name_stack, self.made_untyped = EMPTY_NAME_STACK, False

    def __getattr__(self, attr):
        if attr not in _LAZY:
            raise AttributeError(attr)
        code, lasti = self._code, self._lasti
        pos, i = _positions(code), lasti // 2
        line, _, col, end_col = pos[i] if 0 <= i < len(pos) else (None, None, None, None)
        if not line:   # an instruction without a position: the line it belongs to
            line = next((ln for start, end, ln in code.co_lines() if start <= lasti < end),
                        None)
        self.line, self.col, self.end_col = line, col, end_col
        self._code = None   # (resolved: the code object is no longer needed)
        return getattr(self, attr)

    def replace(self, **kw):
        if self._code is not None and not _LAZY.intersection(kw) and "compute_type" not in kw:
            d = {"name": self.name, "phase": self.phase}
            d.update(kw)
            new = _FrameSourceInfo(self._code, self._lasti, d["name"], d["phase"])
            new.file = d.get("file", self.file)
            new.name_stack = d.get("name_stack", self.name_stack)
            new.made_untyped = d.get("made_untyped", self.made_untyped)
            return new
        d = {k: getattr(self, k) for k in SourceInfo.__slots__}
        d.update(kw)
        return SourceInfo(**d)


def _frame_location(frame, lasti=None) -> SourceInfo:
    return _FrameSourceInfo(frame.f_code, frame.f_lasti if lasti is None else lasti)


def user_location(depth: int = 1) -> SourceInfo:
    """The innermost frame running converted user code, as a SourceInfo."""
    f = sys._getframe(depth)
    entries = USER_CODE.entries   # `in USER_CODE` inline: once per frame per operation
    while f is not None:
        e = entries.get(id(f.f_code))
        if e is not None and e[0]() is f.f_code:
            return _frame_location(f)
        f = f.f_back
    return UNKNOWN


def raised_location(e: BaseException) -> SourceInfo:
    """Where `e` was raised in converted user code: the innermost frame of its
    traceback running converted user code (UNKNOWN if none)."""
    loc, tb = UNKNOWN, e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code in USER_CODE:
            loc = _frame_location(tb.tb_frame, tb.tb_lasti)
        tb = tb.tb_next
    return loc


def format_location(loc: SourceInfo) -> str:
    if loc is None or loc.file is None:
        return ""
    text = linecache.getline(loc.file, loc.line).rstrip("\n")
    if not text:
        return f"{loc.where()}\n"
    col = loc.col or 0
    end = loc.end_col if loc.end_col and loc.end_col > col else len(text.rstrip())
    if end <= col:
        end = col + 1
    return f"{loc.where()}\n    {text}\n    {' ' * col}{'^' * (end - col)}\n"


class AstjaxError(Exception):
    """Base class of every error astjax reports about user code."""
    default_hint = ""

    def __init__(self, message: str, hint: str | None = None, loc: SourceInfo | None = None,
                 extra: str = ""):
        self.message = message
        self.hint = self.default_hint if hint is None else hint
        if loc is None:
            loc = user_location(2)
            if loc.file is None:  # raised outside staged code: point at the API call
                loc = caller_location()
        self.loc = loc
        self.extra = extra
        super().__init__(str(self))

    def __str__(self):
        head = format_location(self.loc)
        s = f"{head}{type(self).__name__}: {self.message}" if head else self.message
        if self.extra:
            s += "\n" + self.extra
        if self.hint:
            s += f"\nhint: {self.hint}"
        return s


class JAXTypeError(AstjaxError, TypeError):
    """Base of the errors JAX raises as TypeError (`jax.errors.JAXTypeError`)."""


class JAXIndexError(AstjaxError, IndexError):
    """Base of the errors JAX raises as IndexError (`jax.errors.JAXIndexError`)."""


class JAXValueError(AstjaxError, ValueError):
    """An error JAX raises as a plain ValueError (e.g. Python's own, from a builtin
    called on a staged value), located at the user's line."""


class JAXAttributeError(AstjaxError, AttributeError):
    """An operation arrays do not support, where JAX raises AttributeError (`del x[i]`)."""


def located_builtin_error(e: Exception, hint: str = "") -> AstjaxError | None:
    """Python's own TypeError / ValueError / IndexError / AttributeError `e` (raised by
    a builtin on a user's value) as the located AstjaxError subclass of the same
    builtin class (so `except TypeError:` still catches it), or None for other
    classes. Located at the innermost converted user frame, or the API call."""
    for builtin, cls in ((TypeError, JAXTypeError), (ValueError, JAXValueError),
                         (IndexError, JAXIndexError), (AttributeError, JAXAttributeError)):
        if isinstance(e, builtin):
            loc = user_location(2)
            return cls(str(e), hint=hint, loc=loc if loc.file is not None else caller_location())
    return None


class ConcretizationError(JAXTypeError):
    """A staged value used where Python needs a concrete one (JAX's
    `ConcretizationTypeError`, a TypeError)."""
    default_hint = ("this value is only known when the compiled function runs; mark the "
                    "argument static (static_argnums / static_argnames) or compute it from "
                    "shapes, which are always static")


ConcretizationTypeError = ConcretizationError


class TracerBoolConversionError(ConcretizationError):
    """`bool()` of a staged value (an `if`/`while` test Python must decide)."""


class TracerIntegerConversionError(ConcretizationError):
    """`int()` / `operator.index()` of a staged value."""


class TracerArrayConversionError(ConcretizationError):
    """`np.asarray()` / `float()` of a staged value."""


class StagedSliceError(ConcretizationError, IndexError):
    """A staged slice bound (`x[:n]` with `n` staged): a concretization, and the
    IndexError JAX raises ('slice entries must be static integers')."""
    default_hint = ("use lax.dynamic_slice(x, (start,), (size,)) for a staged start with a "
                    "static size, or mark the bound static (static_argnums)")


class NonConcreteBooleanIndexError(JAXIndexError):
    default_hint = ("a boolean mask gives a result whose shape depends on the data; use "
                    "jnp.where(mask, x, 0) to keep the shape, or jnp.nonzero(mask, size=n)")


class UnsupportedSyntaxError(AstjaxError, NotImplementedError):
    default_hint = "rewrite this part outside the staged function, or use a supported form"


class ShapeError(JAXTypeError):
    """Operand shapes that do not fit the operation (a TypeError, as JAX's)."""
    default_hint = "check the shapes of the operands; x.shape is available at staging time"


class DTypeError(JAXTypeError):
    default_hint = "convert explicitly with x.astype(dtype)"


class ShapeValueError(AstjaxError, ValueError):
    """A shape or axis argument JAX rejects with ValueError (a repeated or out-of-range
    reduction axis, padding below size 0, squeezing an axis whose size is not 1)."""
    default_hint = "check the shapes of the operands; x.shape is available at staging time"


class InternalError(AstjaxError, RuntimeError):
    """XLA rejected the StableHLO astjax produced for an equation: a bug in astjax (its
    shape rules should have rejected the program first), located at that equation."""
    default_hint = "this is a bug in astjax; please report it with this program"


class JaxprTypeError(AstjaxError, TypeError):
    """A jaxpr that is not well-formed (`ir.check_jaxpr`, run when `jax_enable_checks`
    is on): JAX's `jax.errors.JaxprTypeError`, a TypeError."""
    default_hint = "this is a bug in an astjax pass; please report it with the jaxpr"


class InconclusiveDimensionOperation(AstjaxError):
    """JAX's error for an operation on symbolic dimensions (`jax.export`'s shape
    polymorphism, astjax/shape_poly.py) whose result cannot be decided for every value
    of the dimension variables, e.g. `b >= 2` or `int(b)`; a plain Exception, as JAX's."""


class AmbiguousTruthValueError(AstjaxError, ValueError):
    """The truth value of an array with more than one element (`a and b` on arrays), a
    ValueError as in NumPy and JAX."""
    default_hint = "use jnp.logical_and / jnp.logical_or (elementwise), or a.any() / a.all()"


class UndefinedVariableError(AstjaxError, NameError):
    """A name read where no path binds it (a NameError, as Python's for a global or a
    free variable nothing has bound)."""
    default_hint = "assign the variable before the `if` (or in every branch)"


class UnboundLocalVariableError(UndefinedVariableError, UnboundLocalError):
    """A local variable of a converted function read where it is not bound on every
    path (never assigned on it, or deleted): Python's (and so JAX's) UnboundLocalError."""
    default_hint = ("bind the variable on every path that reaches this line (before the "
                    "`if` or loop, or in every branch), and do not `del` it before the read")


class LoopCarryError(JAXTypeError):
    default_hint = ("a loop variable must keep its shape and dtype from one iteration to "
                    "the next; initialise it with the final shape/dtype before the loop")


class SourceNotFoundError(AstjaxError):
    default_hint = ("astjax stages functions from their source: define the function in a "
                    "file (not an interactive prompt or exec) so `inspect` can find it")


class SourceChangedError(SourceNotFoundError):
    """The source file of a function was edited after its module was imported: the text
    on disk no longer compiles to the code Python runs, so staging it would silently
    compute something else (R6)."""
    default_hint = ("re-import the module (importlib.reload) or restart Python, so the "
                    "function Python runs and the source astjax stages agree")


class ArgumentError(AstjaxError):
    """An argument astjax cannot use as an operand or option (base of the ArgumentType/Value errors)."""
    default_hint = "pass arrays, Python scalars, or pytrees (tuples, lists, dicts) of them"


class ArgumentTypeError(ArgumentError, TypeError):
    """An API argument of the wrong kind (where JAX raises TypeError)."""


class ArgumentValueError(ArgumentError, ValueError):
    """An API argument of the right kind but a wrong value (where JAX raises
    ValueError): an index out of range, mismatched sizes, an unhashable static."""
    default_hint = "check this argument's value against what the function accepts"


class ArgumentIndexError(ArgumentError, IndexError):
    """A malformed index (where JAX raises IndexError), e.g. two ellipses."""
    default_hint = "use at most one `...`, and one index per axis"


class ArgumentZeroDivisionError(ArgumentError, ZeroDivisionError):
    """An API argument that divides by zero (`jnp.arange(0, 10, 0)`), where JAX raises
    ZeroDivisionError."""
    default_hint = "pass a nonzero value"


class UnknownOptionError(ArgumentError, AttributeError):
    """An unknown configuration option (JAX raises AttributeError)."""
    default_hint = "check the option's name against astjax.config's known options"


class UnknownPathOptimizerError(ArgumentError, KeyError):
    """An unknown `optimize=` name of `einsum_path` (opt_einsum's KeyError under JAX)."""
    default_hint = "use 'auto', 'optimal', 'greedy', or an explicit path"


class ArityError(ArgumentTypeError):
    """A function called with arguments its signature does not accept (Python's
    TypeError), reported at the user's call before anything is staged."""
    default_hint = "check the number and names of the arguments against the function's signature"


class StructureError(JAXTypeError):
    """Pytrees that must agree do not: the branches of a `cond`/`switch`, the carry of a
    loop before and after its body, a scan body's (carry, y) pair."""
    default_hint = ("every branch (or loop iteration) must return the same containers with "
                    "arrays of the same shapes and dtypes; compare the two structures above")


class EscapedTracerError(JAXTypeError):
    default_hint = ("a staged value was stored outside the function being staged (e.g. in a "
                    "global list) and used later; return it instead")


class NotImplementedInAstjaxError(AstjaxError, NotImplementedError):
    """A JAX feature or argument that astjax does not implement (a NotImplementedError)."""
    default_hint = "see docs/api.md for what is implemented"


class MissingNameError(NotImplementedInAstjaxError, AttributeError):
    """A JAX name astjax does not have (yet): also an AttributeError, so
    `hasattr(jnp, name)` is False, as libraries probing for names expect."""


class DifferentiationError(AstjaxError):
    """A derivative astjax cannot form (an unsupported primitive, a non-float input)."""
    default_hint = ""


class DifferentiationTypeError(DifferentiationError, TypeError):
    """A function or argument `grad` cannot differentiate, where JAX raises TypeError: a
    non-scalar or integer output, an integer input, `has_aux` without a pair."""
    default_hint = ("grad differentiates a function returning one real scalar with respect "
                    "to float arguments; use jacrev/jacfwd or vjp for other outputs")


class DerivativeNotImplementedError(DifferentiationError, NotImplementedError):
    """A primitive without a derivative rule, or a case of one its rule leaves out, where
    JAX raises NotImplementedError: `nextafter`, scatter_mul with respect to the updates
    without `unique_indices=True`."""
    default_hint = "stop_gradient the operand, or differentiate a different formulation"


class DerivativeValueError(DifferentiationError, ValueError):
    """A derivative with respect to an argument JAX refuses with ValueError: polygamma's
    order `m`."""
    default_hint = "differentiate with respect to the other arguments only"


class UndefinedRuleError(AstjaxError, AttributeError):
    """A custom_jvp / custom_vjp function used before its rule was defined (JAX raises
    AttributeError)."""
    default_hint = "define the rule with f.defjvp(...) / f.defvjp(fwd, bwd) before using f"


class AxisNameError(AstjaxError, NameError):
    """A collective names an axis no enclosing vmap/pmap/shard_map binds (a NameError, as JAX's)."""
    default_hint = "use the axis_name given to vmap/pmap around this function"


UnexpectedTracerError = EscapedTracerError


class KeyReuseError(JAXTypeError):
    """A PRNG key used twice where the program promised single use."""
    default_hint = "split the key (random.split) and use each part once"


class AxisError(ArgumentError, ValueError, IndexError):
    """An axis argument out of range, or repeated. Like NumPy's AxisError it is both a
    ValueError and an IndexError: JAX raises one or the other depending on the function."""
    default_hint = "axes count from 0 (or from -1 backwards) and must be < the array's ndim"


class ReductionError(ArgumentError, ValueError):
    """A reduction without an identity (max, min, argmax, argmin) over an empty axis, or
    with a `where` mask but no `initial` (JAX's ValueError)."""
    default_hint = "pass initial= (max/min), or reduce over axes that are not empty"


class ScalarOverflowError(ArgumentError, OverflowError):
    """A Python int too large for the integer dtype it is converted to (JAX's
    OverflowError; NumPy would wrap it around silently), or a float identity (-inf) an
    integer operation has no value for (`lax.cumlogsumexp` of integers)."""
    default_hint = ("pass a dtype wide enough (64-bit types need "
                    "config.update('jax_enable_x64', True)), or a float")


JaxRuntimeError = _jax.JaxRuntimeError  # what a failing XLA execution raises


class RuntimeDTypeError(AstjaxError, JaxRuntimeError):
    """A dtype jaxlib's runtime cannot hold or compile here (float6_e2m3fn and
    float6_e3m2fn on CPU): JAX's JaxRuntimeError (INVALID_ARGUMENT), located."""
    default_hint = "convert to a dtype the backend runs, e.g. float8_e4m3fn or float32"


class FfiTargetError(AstjaxError, JaxRuntimeError):
    """An `ffi_call` of a target no kernel is registered for: JAX's JaxRuntimeError
    (XLA's NOT_FOUND when it compiles the call), located at the call."""
    default_hint = ("register the kernel first: astjax.ffi.register_ffi_target(name, "
                    "astjax.ffi.pycapsule(lib.Handler), platform='cpu')")


class FfiKernelError(AstjaxError, JaxRuntimeError):
    """An FFI kernel returned an error status while the program ran: JAX's
    JaxRuntimeError with XLA's text (the status code and the kernel's message),
    located at the `ffi_call` (or the primitive lowered to the call) that ran it."""
    default_hint = ""


class BackendUnimplementedError(AstjaxError, JaxRuntimeError):
    """An operation the backend's XLA compiler has no kernel for (XLA's UNIMPLEMENTED,
    e.g. `ragged_all_to_all` on CPU): JAX's JaxRuntimeError, located at the call."""
    default_hint = "run it on a backend that implements it (GPU or TPU)"


class FfiKernelArgumentError(FfiKernelError, ValueError):
    """`FfiKernelError` of a kernel's INVALID_ARGUMENT status, also a ValueError: JAX
    raises JaxRuntimeError on a first call and ValueError from its cached dispatch."""


class IndivisibleError(ValueError):
    """An array dimension is not divisible by the number of its shards."""


class DuplicateSpecError(ValueError):
    """A mesh axis appears twice in one `PartitionSpec`."""


class ShardingTypeError(AstjaxError):
    """JAX's ShardingTypeError: an operation on arrays laid out over Explicit mesh
    axes whose layouts (part of their types) are incompatible, e.g. adding arrays
    sharded over different axes along one dimension (`codegen/explicit.py`)."""


class SideEffectWarning(UserWarning):
    """A staged function stores a staged value in a Python object it does not own (the
    object keeps a tracer: the store runs once, while staging). A store of Python
    values only runs once per trace, as in JAX, and does not warn."""


class NoSourceWarning(UserWarning):
    """A function has no source astjax can find: it is traced, as JAX traces it."""


def warn_at(loc: SourceInfo, message: str, category=SideEffectWarning):
    text = f"{format_location(loc)}{message}" if loc and loc.file else message
    warnings.warn_explicit(text, category, loc.file or "<astjax>", loc.line or 0)


def def_location(fun) -> str:
    """'file:line' where `fun` is defined, for messages."""
    code = getattr(inspect.unwrap(fun), "__code__", None) if callable(fun) else None
    return f"{code.co_filename}:{code.co_firstlineno}" if code is not None else "<unknown>"


def function_name(fun) -> str:
    """The user's name for `fun` (its qualified name, never a generated wrapper's)."""
    plain = inspect.unwrap(fun) if callable(fun) else fun
    plain = getattr(plain, "func", plain)  # functools.partial
    return getattr(plain, "__qualname__", None) or type(plain).__name__


def check_callable(fun, what: str):
    """A located TypeError (as JAX's) when `fun` is not callable, or is a generator
    function (its call returns a generator, not values)."""
    if not callable(fun):
        raise ArgumentTypeError(f"{what}: expected a callable value, got {fun!r:.60}",
                                hint="pass the function itself (not its result or its name)")
    if inspect.isgeneratorfunction(fun):
        raise ArgumentTypeError(f"{what}: expected a function, got a generator function: "
                                f"{fun!r:.60}", hint="return the values (e.g. stacked with "
                                "jnp.stack([...])) instead of yielding them")


def _binds_positionally(fun, nargs) -> bool:
    """True when `fun(*nargs positional arguments)` certainly binds: a plain function
    (no `__signature__`) whose code takes that many positional arguments and needs no
    keyword-only one. Read from the code object: `inspect.signature` costs more than
    staging a small branch (issue 14)."""
    if type(fun) is not types.FunctionType or "__signature__" in fun.__dict__:
        return False
    code = fun.__code__
    n = code.co_argcount
    if not (n - len(fun.__defaults__ or ()) <= nargs
            and (nargs <= n or code.co_flags & inspect.CO_VARARGS)):
        return False
    kwonly = code.co_varnames[n:n + code.co_kwonlyargcount]
    return all(k in (fun.__kwdefaults__ or {}) for k in kwonly)


def _binding_target(fun):
    """What binds the arguments of a call of `fun`: along its `__wrapped__` chain, the
    first plain Python function: its own parameters, not those of the function it
    wraps (`functools.wraps(f)(lambda *a, **k: f(*a, **k))` takes any arguments; haiku's
    `hk.remat` passes its state that way). Transform objects (`jit(f)`) are passed through;
    an object whose class's `__call__` takes fixed parameters (itself, or the method a
    decorator on it wraps) is its own target (flax's `ScanFn` wraps the user's
    `f(cell, carry, x)` but is called with `(carry, xs)`). A bound method is its own
    target: its `__wrapped__` is its function's, unbound (numpyro's `d.log_prob`, under
    `@validate_sample`, would want `self` again)."""
    return inspect.unwrap(fun, stop=lambda f: isinstance(f, (types.FunctionType,
                                                             types.MethodType))
                          or _calls_with_own_parameters(f))


def _calls_with_own_parameters(f) -> bool:
    # (the class's `__call__` as written: a decorator forwarding `*args` to it, as
    # flax's `SimpleScanFn.__call__`, names it in `__wrapped__`)
    call = getattr(type(f), "__call__", None)
    if isinstance(call, types.FunctionType):
        call = inspect.unwrap(call)
    return (isinstance(call, types.FunctionType)
            and not call.__code__.co_flags & inspect.CO_VARARGS)


def check_signature(fun, args, kwargs=None, what: str = ""):
    """Raise an `ArityError` at the user's call when `fun(*args, **kwargs)` would not
    bind to `fun`'s signature, naming the user's function and where it is defined.
    Functions without an inspectable signature are accepted as they are. A Python
    function is checked against its own parameters, not those of the function it
    names in `__wrapped__` (what Python binds; flax's wrappers take more arguments)."""
    if not kwargs and _binds_positionally(fun, len(args)):
        return
    try:
        sig = inspect.signature(_binding_target(fun), follow_wrapped=False)
    except (TypeError, ValueError):
        return
    try:
        sig.bind(*args, **(kwargs or {}))
    except TypeError as e:
        name = function_name(fun)
        given = f"{len(args)} positional argument{'s' if len(args) != 1 else ''}"
        if kwargs:
            given += " and keyword argument" + ("s " if len(kwargs) > 1 else " ") + \
                ", ".join(map(repr, kwargs))
        msg = f"{name}{sig} called with {given}: {e}"
        raise ArityError(f"{what}: {msg}" if what else msg,
                         hint=f"{name} is defined at {def_location(fun)}; pass the arguments "
                              "its signature takes") from None


def caller_location() -> SourceInfo:
    """The innermost frame outside astjax itself (where the user called the API)."""
    import os
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    pkgs = tuple(os.path.join(here, d) + os.sep for d in ("astjax", "transforms", "codegen"))
    f = sys._getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if f.f_code in USER_CODE or not fn.startswith(pkgs):
            return _frame_location(f)
        f = f.f_back
    return UNKNOWN
