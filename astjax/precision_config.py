"""What a caller asks of an operation's numerics beyond its dtypes, as `jax.lax` spells
it: `Precision` and the dot algorithms (`DotAlgorithm`, `DotAlgorithmPreset`) of
`dot_general` / `conv_general_dilated`, and the result accuracy (`AccuracyMode`,
`Tolerance`) of the transcendental unary functions.

- `canonicalize_precision` reads a `precision=` argument as JAX does: None (then the
  `jax_default_matmul_precision` flag), a `Precision` or its string, a pair of them, a
  preset or its name, or a `DotAlgorithm`; anything else is JAX's ValueError.
- A dot algorithm decides the types the operands are rounded to and the accumulation
  type (`compute_types`); the result keeps `dot_general`'s dtype, converted back from
  the accumulator. The StableHLO attribute lists the types of `attribute_types`.
- The CPU backend silently ignores an algorithm, so JAX rejects every one but the
  presets it computes faithfully (`CPU_PRESETS`); `check_platform` raises that error.
- `accuracy=` is None, an `AccuracyMode` or a `Tolerance`; it becomes the op's
  `result_accuracy` attribute (`accuracy_attribute`).
"""
from __future__ import annotations

import enum
from typing import NamedTuple

import ml_dtypes
import numpy as np

from .config import config
from .errors import ArgumentError, ArgumentValueError, JAXValueError

__all__ = ["Precision", "DotAlgorithm", "DotAlgorithmPreset", "AccuracyMode", "Tolerance",
           "canonicalize_precision", "is_algorithm", "compute_types", "attribute_types",
           "precision_config_attribute", "source_value", "check_platform", "CPU_PRESETS",
           "AccuracyError", "check_accuracy", "accuracy_attribute"]


class Precision(enum.Enum):
    """`lax.Precision`: how hard a backend may cut corners in a matrix product
    (DEFAULT may use bfloat16 / TF32 passes on accelerators; CPU computes exactly).
    Also constructed from JAX's strings: 'default'/'fastest'/'bfloat16',
    'high'/'tensorfloat32'/'bfloat16_3x', 'highest'/'float32'."""
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value):
        return _PRECISION_STRINGS.get(value) if isinstance(value, str) or value is None else None

    def __repr__(self):
        return f"Precision.{self.name}"

    __str__ = lambda self: self.name  # noqa: E731


# JAX's names, in JAX's order (its error message lists them)
_PRECISION_STRINGS = {"highest": Precision.HIGHEST, "float32": Precision.HIGHEST,
                      "high": Precision.HIGH, "bfloat16_3x": Precision.HIGH,
                      "tensorfloat32": Precision.HIGH, "default": Precision.DEFAULT,
                      "bfloat16": Precision.DEFAULT, "fastest": Precision.DEFAULT,
                      None: Precision.DEFAULT}


class DotAlgorithm(NamedTuple):
    """`lax.DotAlgorithm`: the algorithm of a dot product, passed as `precision=`.

    Fields: `lhs_precision_type` / `rhs_precision_type` (the dtypes the operands are
    rounded to), `accumulation_type`, `lhs_component_count` / `rhs_component_count` /
    `num_primitive_operations` (for algorithms that split operands into several
    low-precision parts; 1 otherwise) and `allow_imprecise_accumulation`. The result
    keeps `dot_general`'s dtype. Support is per platform: the CPU backend accepts only
    some `DotAlgorithmPreset` members, so any `DotAlgorithm` fails to compile there
    (JAX's ValueError)."""
    lhs_precision_type: object
    rhs_precision_type: object
    accumulation_type: object
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


class DotAlgorithmPreset(enum.Enum):
    """`lax.DotAlgorithmPreset`: the named dot algorithms, `LHS_RHS_ACCUM` (the operand
    and accumulation types; `_X3`/`_X6`/`_X9`: that many bf16/tf32 products emulate a
    wider type; `ANY_F8`: any float8 operands; `_ANY` accumulation: the output dtype;
    `_FAST_ACCUM`: imprecise accumulation allowed). Pass a member or its name as
    `precision=`. On CPU only DEFAULT, F16_F16_F16, F32_F32_F32, F64_F64_F64,
    BF16_BF16_F32 and its _X3/_X6 are accepted."""
    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self):
        return f"DotAlgorithmPreset.{self.name}"

    def __str__(self):
        return self.name

    @property
    def supported_lhs_types(self):
        """The operand dtypes the algorithm takes as they are (None: any); another
        operand dtype is converted to the first of them."""
        name = self.name
        if name == "DEFAULT" or name.startswith("ANY_F8"):
            return None
        if name.startswith("F16_"):
            return (np.float16,)
        if name in ("BF16_BF16_BF16", "BF16_BF16_F32"):
            return (ml_dtypes.bfloat16, np.float32)
        if name == "F64_F64_F64":
            return (np.float64,)
        return (np.float32,)

    @property
    def supported_rhs_types(self):
        """As `supported_lhs_types`, for the right operand."""
        return self.supported_lhs_types

    @property
    def accumulation_type(self):
        """The accumulator's dtype (None: the output dtype)."""
        name = self.name
        if name in ("DEFAULT", "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM"):
            return None
        return {"F16_F16_F16": np.float16, "BF16_BF16_BF16": ml_dtypes.bfloat16,
                "F64_F64_F64": np.float64}.get(name, np.float32)

    def supported_output_types(self, lhs_dtype, rhs_dtype):
        """The accumulator dtypes the algorithm can produce for these operand dtypes
        (None: any); the first one is used when the output dtype is not among them."""
        name = self.name
        if name in ("ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM"):
            return (np.float32, np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn,
                    ml_dtypes.float8_e5m2, ml_dtypes.float8_e5m2fnuz,
                    ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e4m3b11fnuz)
        narrow = {"F16_F16_F32": np.float16, "BF16_BF16_F32": ml_dtypes.bfloat16}.get(name)
        if narrow is not None:
            # the narrow output only when both operands are already narrow
            same = np.dtype(lhs_dtype) == np.dtype(rhs_dtype) == np.dtype(narrow)
            return (np.float32, narrow) if same else (np.float32,)
        acc = self.accumulation_type
        return None if acc is None else (acc,)


_FLOAT8 = tuple(np.dtype(getattr(ml_dtypes, n)) for n in (
    "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
    "float8_e3m4", "float8_e4m3", "float8_e8m0fnu"))
# the presets XLA's CPU backend computes as named (it ignores any other algorithm)
CPU_PRESETS = frozenset(DotAlgorithmPreset[n] for n in (
    "DEFAULT", "F16_F16_F16", "F32_F32_F32", "F64_F64_F64", "BF16_BF16_F32",
    "BF16_BF16_F32_X3", "BF16_BF16_F32_X6"))


def _precision_error(precision):
    return ArgumentValueError(
        "Precision argument must be one of:\n- None,\n"
        f"- a string in {list(_PRECISION_STRINGS)},\n- a lax.Precision value,\n"
        "- a tuple of two lax.Precision values or strings,\n"
        "- a lax.DotAlgorithmPreset or the name of one of these presets, or\n"
        f"- a lax.DotAlgorithm value;\nbut got {precision}.")


def canonicalize_precision(precision):
    """A `precision=` argument -> None, a pair of `Precision`, a `DotAlgorithmPreset` or
    a `DotAlgorithm` (JAX's canonical forms). None reads `jax_default_matmul_precision`."""
    if precision is None:
        flag = config.jax_default_matmul_precision
        if flag is None:
            return None
        try:
            return canonicalize_precision(flag)
        except ValueError:
            raise ArgumentValueError(
                "jax_default_matmul_precision flag must be set to None, a value in "
                f"{list(_PRECISION_STRINGS)}, or the name of a lax.DotAlgorithmPreset, "
                f"but got {flag}") from None
    if isinstance(precision, str):
        if precision in _PRECISION_STRINGS:
            return (Precision(precision),) * 2
        if precision in DotAlgorithmPreset.__members__:
            return DotAlgorithmPreset[precision]
    elif isinstance(precision, Precision):
        return (precision, precision)
    elif isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)):
        return precision
    elif isinstance(precision, (list, tuple)) and len(precision) == 2:
        if all(isinstance(p, Precision) for p in precision):
            return tuple(precision)
        if all(isinstance(p, str) for p in precision):
            return tuple(canonicalize_precision(p)[0] for p in precision)
    raise _precision_error(precision)


def is_algorithm(precision) -> bool:
    """Whether a canonical precision names a dot algorithm (not a Precision pair)."""
    return isinstance(precision, (DotAlgorithm, DotAlgorithmPreset))


def compute_types(algorithm, lhs_dtype, rhs_dtype, out_dtype):
    """(lhs, rhs, accumulation) dtypes the algorithm computes with for these operand
    and output dtypes; the accumulation is None when it is the output dtype."""
    if isinstance(algorithm, DotAlgorithm):
        return tuple(np.dtype(t) for t in algorithm[:3])

    def pick(dt, allowed):
        if allowed is None or np.dtype(dt) in [np.dtype(a) for a in allowed]:
            return np.dtype(dt)
        return np.dtype(allowed[0])

    lhs, rhs = pick(lhs_dtype, algorithm.supported_lhs_types), pick(
        rhs_dtype, algorithm.supported_rhs_types)
    outs = algorithm.supported_output_types(lhs, rhs)
    return lhs, rhs, None if outs is None else pick(out_dtype, outs)


def attribute_types(algorithm, lhs_dtype, rhs_dtype):
    """The fields of StableHLO's `#stablehlo.dot_algorithm` for `algorithm` on operands
    of these (already converted) dtypes: (lhs type, rhs type, accumulation type, lhs
    components, rhs components, primitive operations, imprecise accumulation); a type
    is a dtype or "tf32". None for the DEFAULT preset (no attribute)."""
    if isinstance(algorithm, DotAlgorithm):
        return (*(np.dtype(t) for t in algorithm[:3]), *algorithm[3:])
    name = algorithm.name
    if name == "DEFAULT":
        return None
    if name.startswith("ANY_F8"):
        if np.dtype(lhs_dtype) not in _FLOAT8 or np.dtype(rhs_dtype) not in _FLOAT8:
            raise JAXValueError(f"The dot algorithm '{algorithm}' requires both inputs to "
                                f"have float8 dtypes. Got {lhs_dtype} and {rhs_dtype} instead.")
        return (np.dtype(lhs_dtype), np.dtype(rhs_dtype), np.dtype(np.float32), 1, 1, 1,
                name == "ANY_F8_ANY_F8_F32_FAST_ACCUM")
    lhs, _, acc = name.split("_")[:3]
    passes = int(name.rsplit("_X", 1)[1]) if "_X" in name else 1
    types = {"F16": np.dtype(np.float16), "BF16": np.dtype(ml_dtypes.bfloat16),
             "TF32": "tf32", "F32": np.dtype(np.float32), "F64": np.dtype(np.float64)}
    return (types[lhs], types[lhs], types[acc], 1, 1, passes, False)


def precision_config_attribute(precision):
    """StableHLO's `precision_config` of a dot or convolution: a Precision pair as
    given, DEFAULT twice without one or beside an algorithm (JAX always prints it)."""
    pair = (Precision.DEFAULT,) * 2 if precision is None or is_algorithm(precision) else precision
    return "[" + ", ".join(f"#stablehlo<precision {p.name}>" for p in pair) + "]"


def source_value(precision):
    """A canonical precision as printed source spells it: a pair by its names
    (`('HIGHEST', 'HIGHEST')`), an algorithm as itself."""
    return precision if is_algorithm(precision) else tuple(p.name for p in precision)


def check_platform(algorithm, platform):
    """JAX's ValueError for an algorithm the platform would silently ignore."""
    if platform == "cpu" and algorithm not in CPU_PRESETS:
        raise JAXValueError(f"The precision '{algorithm}' is not supported by dot_general "
                            "on CPU", hint="use one of the presets "
                            + ", ".join(sorted(p.name for p in CPU_PRESETS))
                            + " on CPU, or a lax.Precision")


# ------------------------------------------------------------------- result accuracy


class Tolerance:
    """`lax.Tolerance(atol=0.0, rtol=0.0, ulps=0)`: the largest error a unary function's
    implementation may have; the compiler picks one that meets it (or fails).
    Tolerances must be non-negative and at least one must be set."""

    def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0):
        if atol < 0.0 or rtol < 0.0 or ulps < 0.0:
            raise ArgumentValueError("Tolerances must be non-negative.")
        if atol == 0.0 and rtol == 0.0 and ulps == 0:
            raise ArgumentValueError("At least one of atol, rtol, or ulps must be set.")
        self.atol, self.rtol, self.ulps = atol, rtol, ulps


class AccuracyMode(enum.Enum):
    """`lax.AccuracyMode`: HIGHEST asks for the most accurate implementation of a unary
    function, DEFAULT for the backend's usual one (also its derivative's rule: under
    HIGHEST, `expm1`, `tanh` and `logistic` differentiate through accurate functions)."""
    HIGHEST = 1
    DEFAULT = 2


class AccuracyError(ArgumentError, NotImplementedError):
    """An `accuracy=` that is neither an AccuracyMode nor a Tolerance (JAX raises
    NotImplementedError when it lowers one)."""


def check_accuracy(accuracy, name):
    """`accuracy=` of lax.`name`: None, an AccuracyMode or a Tolerance."""
    if accuracy is not None and not isinstance(accuracy, (AccuracyMode, Tolerance)):
        raise AccuracyError(f"Accuracy {accuracy} not supported",
                            hint=f"lax.{name}'s accuracy= takes None, a lax.AccuracyMode or "
                                 "a lax.Tolerance")
    return accuracy


def accuracy_attribute(accuracy) -> dict:
    """The op attributes for `accuracy` (`result_accuracy`), {} for None."""
    if accuracy is None:
        return {}
    if isinstance(accuracy, AccuracyMode):
        atol, rtol, ulps, mode = 0.0, 0.0, 0, accuracy.name
    else:
        atol, rtol, ulps, mode = float(accuracy.atol), float(accuracy.rtol), int(
            accuracy.ulps), "TOLERANCE"
    return {"result_accuracy": f"#stablehlo.result_accuracy<atol = {atol:.17e}, rtol = "
                               f"{rtol:.17e}, ulps = {ulps}, mode = "
                               f"#stablehlo.result_accuracy_mode<{mode}>>"}
