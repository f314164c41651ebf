"""Docstrings for the elementwise functions of `astjax.numpy.ufuncs` (issue 17), kept
here so ufuncs.py stays small: `doc(name)` renders one from the table below."""
from __future__ import annotations

import textwrap

# Args text by signature kind.
_ARGS = {
    "x": ("x: an array or a Python/NumPy scalar.",),
    "xy": ("x: an array or scalar.", "y: an array or scalar, broadcast against `x`."),
    "x1x2": ("x1: an array or scalar.", "x2: an array or scalar, broadcast against `x1`."),
}

_PROMO = ("A Python scalar operand is weakly typed: it takes the array operand's dtype "
          "instead of widening it (NumPy would promote to float64/int64).")
_INEX = ("Integer and bool inputs are promoted to the default float dtype (float32 "
         "unless x64 is enabled), not to float64 as in NumPy.")
_NOOUT = "There is no `out=` argument; a new array is always returned."

# name: (signature kind, summary, returns, differences from NumPy)
_T = {
    "negative": ("x", "Elementwise arithmetic negation, `-x`.", "An array of x's dtype.",
                 "Unsigned integers wrap around modulo 2**bits. " + _NOOUT),
    "positive": ("x", "Elementwise unary plus: returns the values of `x` unchanged.",
                 "An array of x's dtype.", _NOOUT),
    "sign": ("x", "Elementwise sign: -1, 0 or 1 (complex: x / |x|).", "An array of x's dtype.",
             "NaN inputs give NaN; the result keeps x's dtype. " + _NOOUT),
    "floor": ("x", "Elementwise floor: the largest integer not above each value.",
              "An array of x's dtype; integer inputs are returned as they are.",
              "Integer inputs are returned unchanged, keeping their integer dtype."),
    "ceil": ("x", "Elementwise ceiling: the smallest integer not below each value.",
             "An array of x's dtype; integer inputs are returned as they are.",
             "Integer inputs keep their integer dtype."),
    "trunc": ("x", "Elementwise rounding toward zero.",
              "An array of x's dtype; integer inputs are returned as they are.",
              "Integer inputs keep their integer dtype."),
    "fabs": ("x", "Elementwise absolute value, always as a floating result.",
             "A floating array.", _INEX),
    "exp": ("x", "Elementwise natural exponential, e ** x.", "A floating array.",
            _INEX + " Overflow gives inf silently (no warnings)."),
    "exp2": ("x", "Elementwise base-2 exponential, 2 ** x.", "A floating array.", _INEX),
    "log": ("x", "Elementwise natural logarithm.", "A floating array.",
            _INEX + " log(0) is -inf and log of a negative real is NaN, with no warning."),
    "log1p": ("x", "Elementwise log(1 + x), accurate for small |x|.", "A floating array.",
              _INEX),
    "expm1": ("x", "Elementwise exp(x) - 1, accurate for small |x|.", "A floating array.",
              _INEX),
    "sqrt": ("x", "Elementwise non-negative square root.", "A floating array.",
             _INEX + " sqrt of a negative real is NaN without a warning."),
    "cbrt": ("x", "Elementwise real cube root (negative inputs give negative roots).",
             "A floating array.", _INEX),
    "sin": ("x", "Elementwise sine of an angle in radians.", "A floating array.", _INEX),
    "cos": ("x", "Elementwise cosine of an angle in radians.", "A floating array.", _INEX),
    "tan": ("x", "Elementwise tangent of an angle in radians.", "A floating array.", _INEX),
    "arcsin": ("x", "Elementwise inverse sine, in radians.", "A floating array.",
               _INEX + " Inputs outside [-1, 1] give NaN silently."),
    "arccos": ("x", "Elementwise inverse cosine, in radians.", "A floating array.",
               _INEX + " Inputs outside [-1, 1] give NaN silently."),
    "arctan": ("x", "Elementwise inverse tangent, in radians.", "A floating array.", _INEX),
    "sinh": ("x", "Elementwise hyperbolic sine.", "A floating array.", _INEX),
    "cosh": ("x", "Elementwise hyperbolic cosine.", "A floating array.", _INEX),
    "tanh": ("x", "Elementwise hyperbolic tangent.", "A floating array.", _INEX),
    "arcsinh": ("x", "Elementwise inverse hyperbolic sine.", "A floating array.", _INEX),
    "arccosh": ("x", "Elementwise inverse hyperbolic cosine.", "A floating array.",
                _INEX + " Inputs below 1 give NaN silently."),
    "arctanh": ("x", "Elementwise inverse hyperbolic tangent.", "A floating array.",
                _INEX + " |x| > 1 gives NaN and |x| == 1 gives +-inf, silently."),
    "isfinite": ("x", "Elementwise test for values that are neither inf nor NaN.",
                 "A bool array of x's shape.", "Integer and bool inputs are all finite "
                 "(an all-True array). " + _NOOUT),
    "real": ("x", "The real part of each element.",
             "A real array (float32 for complex64 input); real input is returned as is.",
             "Returns a new array, never a writable view into `x`."),
    "imag": ("x", "The imaginary part of each element.",
             "A real array; zeros of x's dtype for real input.",
             "Returns a new array, never a writable view into `x`."),
    "conjugate": ("x", "Elementwise complex conjugate.", "An array of x's dtype; real input "
                  "is returned as is.", _NOOUT),
    "abs": ("x", "Elementwise absolute value (modulus for complex input).",
            "An array of x's dtype (a real dtype for complex input).",
            "The most negative signed integer maps to itself (two's complement), as in "
            "NumPy; bool and unsigned inputs are returned as they are. " + _NOOUT),
    "invert": ("x", "Elementwise bitwise NOT (logical NOT for bool).",
               "An array of x's dtype.", "Only integer and bool inputs are accepted. " + _NOOUT),
    "logical_not": ("x", "Elementwise logical NOT: True where x is zero/False.",
                    "A bool array.", _NOOUT),
    "add": ("xy", "Elementwise sum x + y, with broadcasting.",
            "An array of the promoted dtype (logical OR for two bools).",
            _PROMO + " Integer overflow wraps around silently."),
    "subtract": ("xy", "Elementwise difference x - y, with broadcasting.",
                 "An array of the promoted dtype.",
                 _PROMO + " Integer overflow wraps around silently."),
    "multiply": ("xy", "Elementwise product x * y, with broadcasting.",
                 "An array of the promoted dtype (logical AND for two bools).",
                 _PROMO + " Integer overflow wraps around silently."),
    "true_divide": ("x1x2", "Elementwise true division x1 / x2.", "A floating array.",
                    _INEX + " Division by zero gives inf/NaN with no warning."),
    "maximum": ("xy", "Elementwise larger of x and y.", "An array of the promoted dtype.",
                _PROMO + " A NaN in either operand gives NaN (see `fmax` to skip NaNs)."),
    "minimum": ("xy", "Elementwise smaller of x and y.", "An array of the promoted dtype.",
                _PROMO + " A NaN in either operand gives NaN (see `fmin` to skip NaNs)."),
    "arctan2": ("x1x2", "Elementwise arctangent of x1 / x2, the quadrant taken from both signs.", "A floating array of angles in [-pi, pi].",
                _INEX + " The first argument is the y-coordinate, as in NumPy."),
    "nextafter": ("xy", "The next representable float after x in the direction of y.",
                  "A floating array.", _INEX + " Spacing is that of the promoted dtype "
                  "(float32 by default), not float64."),
    "equal": ("xy", "Elementwise x == y.", "A bool array.", _PROMO + " " + _NOOUT),
    "not_equal": ("xy", "Elementwise x != y.", "A bool array.", _PROMO + " " + _NOOUT),
    "less": ("xy", "Elementwise x < y.", "A bool array.", _PROMO + " " + _NOOUT),
    "less_equal": ("xy", "Elementwise x <= y.", "A bool array.", _PROMO + " " + _NOOUT),
    "greater": ("xy", "Elementwise x > y.", "A bool array.", _PROMO + " " + _NOOUT),
    "greater_equal": ("xy", "Elementwise x >= y.", "A bool array.", _PROMO + " " + _NOOUT),
    "bitwise_and": ("xy", "Elementwise bitwise AND of integer or bool operands.",
                    "An array of the promoted dtype.", _PROMO),
    "bitwise_or": ("xy", "Elementwise bitwise OR of integer or bool operands.",
                   "An array of the promoted dtype.", _PROMO),
    "bitwise_xor": ("xy", "Elementwise bitwise XOR of integer or bool operands.",
                    "An array of the promoted dtype.", _PROMO),
    "left_shift": ("xy", "Shift the bits of x left by y places.",
                   "An integer array of the promoted dtype.",
                   "Shifting by the bit width or more gives 0 rather than undefined results. "
                   + _PROMO),
    "right_shift": ("x1x2", "Shift the bits of x1 right by x2 places (arithmetic for signed, "
                    "logical for unsigned).", "An integer array of the promoted dtype.",
                    "Over-wide shifts saturate (0 or -1) instead of being undefined. " + _PROMO),
    "logical_and": ("xy", "Elementwise logical AND of the truth values of x and y.",
                    "A bool array.", _NOOUT),
    "logical_or": ("xy", "Elementwise logical OR of the truth values of x and y.",
                   "A bool array.", _NOOUT),
    "logical_xor": ("xy", "Elementwise logical XOR of the truth values of x and y.",
                    "A bool array.", _NOOUT),
    "floor_divide": ("x1x2", "Elementwise division rounded toward minus infinity, x1 // x2.",
                     "An array of the promoted dtype.",
                     _PROMO + " Integer division by zero does not raise; it gives a "
                     "fixed value (-1 - (x1 != 0) for signed ints) instead."),
    "remainder": ("x1x2", "Elementwise remainder with the sign of the divisor, x1 % x2.",
                  "An array of the promoted dtype.",
                  _PROMO + " An integer remainder by zero is 0 with no warning."),
    "fmod": ("x1x2", "Elementwise C-style remainder, with the sign of the dividend.",
             "An array of the promoted dtype.",
             _PROMO + " An integer remainder by zero is 0 with no warning."),
    "divmod": ("x1x2", "Elementwise floor quotient and remainder together.",
               "A tuple `(floor_divide(x1, x2), remainder(x1, x2))`.",
               "Same semantics as the two functions: no ZeroDivisionError, weak scalars."),
    "power": ("x1x2", "Elementwise x1 raised to the power x2.", "An array of the promoted dtype.",
              _PROMO + " A Python int exponent uses repeated multiplication; an integer "
              "base with a traced integer exponent only honours the low 6 bits of x2 "
              "(larger powers overflow anyway)."),
    "float_power": ("xy", "Elementwise power computed in the widest float dtype.",
                    "A float64 array with x64 enabled, else float32.",
                    "Without x64 the computation is float32, not float64."),
    "square": ("x", "Elementwise x * x.", "An array of x's dtype.",
               "Integer overflow wraps around silently. " + _NOOUT),
    "reciprocal": ("x", "Elementwise 1 / x.", "A floating array.",
                   _INEX + " (NumPy keeps integer inputs integral.)"),
    "rint": ("x", "Round each element to the nearest integer, ties to even.",
             "A floating array.", _INEX),
    "around": ("a", "Round each element to `decimals` decimal places, ties to even.",
               "An array of a's dtype; integer inputs are returned as they are.",
               "Non-zero `decimals` scales by 10**decimals in the input's precision, "
               "so float32 results can differ from NumPy's in the last place. " + _NOOUT),
    "isnan": ("x", "Elementwise test for NaN.", "A bool array of x's shape.",
              "Integer and bool inputs give all False. " + _NOOUT),
    "isinf": ("x", "Elementwise test for positive or negative infinity.",
              "A bool array of x's shape.", "Integer and bool inputs give all False. " + _NOOUT),
    "isposinf": ("x", "Elementwise test for +inf.", "A bool array.",
                 "Integer inputs give all False. " + _NOOUT),
    "isneginf": ("x", "Elementwise test for -inf.", "A bool array.",
                 "Integer inputs give all False. " + _NOOUT),
    "signbit": ("x", "Elementwise test for a set sign bit (negative values, including -0.0).",
                "A bool array.", "For floats the sign of -0.0 is detected through 1/x; NaN "
                "inputs give False regardless of their sign bit."),
    "copysign": ("x1x2", "x1's magnitude with x2's sign, elementwise.", "A floating array.",
                 _INEX),
    "where": ("c", "Choose elementwise between x (where condition holds) and y.",
              "An array of the promoted dtype of x and y, broadcast with condition; with "
              "only `condition`, the tuple of index arrays of its non-zero entries.",
              "Under `jit` the one-argument form needs a static `size` (and optionally "
              "`fill_value` for the padding), since output shapes must be static. Both "
              "branches are always computed."),
    "clip": ("clip", "Limit the values of `arr` to the range [min, max].",
             "An array of the promoted dtype of arr and the bounds.",
             "Bounds may be given positionally or as `min=`/`max=`; if "
             "min > max the result is max everywhere. " + _NOOUT),
    "hypot": ("x1x2", "Elementwise sqrt(x1**2 + x2**2), the hypotenuse.", "A floating array.",
              _INEX + " Computed directly, so very large inputs can overflow to inf."),
    "deg2rad": ("x", "Convert angles from degrees to radians.", "A floating array.", _INEX),
    "rad2deg": ("x", "Convert angles from radians to degrees.", "A floating array.", _INEX),
    "log2": ("x", "Elementwise base-2 logarithm.", "A floating array.",
             _INEX + " Computed as log(x) / log(2), so exact powers of two may be off in "
             "the last place."),
    "log10": ("x", "Elementwise base-10 logarithm.", "A floating array.",
              _INEX + " Computed as log(x) / log(10)."),
    "logaddexp": ("xy", "Elementwise log(exp(x) + exp(y)) without overflow.",
                  "A floating array.", _INEX + " At x == y each operand's gradient is 1/2."),
    "logaddexp2": ("xy", "Elementwise log2(2**x + 2**y) without overflow.",
                   "A floating array.", _INEX),
    "sinc": ("x", "The normalized sinc function sin(pi x) / (pi x), 1 at x = 0.",
             "A floating array.", _INEX + " The value and gradient at 0 are finite."),
    "heaviside": ("x1x2", "The Heaviside step: 0 for x1 < 0, 1 for x1 > 0, x2 at x1 == 0.",
                  "A floating array.", _INEX),
    "fmax": ("x1x2", "Elementwise maximum that ignores NaN when only one operand is NaN.",
             "An array of the promoted dtype.", _PROMO),
    "fmin": ("x1x2", "Elementwise minimum that ignores NaN when only one operand is NaN.",
             "An array of the promoted dtype.", _PROMO),
}

_EXTRA_ARGS = {
    "around": ("a: an array or scalar.", "decimals: the number of decimal places (static "
               "int; negative rounds to tens, hundreds, ...)."),
    "where": ("condition: a bool array (other dtypes are compared with 0).",
              "x, y: the values taken where condition is True / False; omit both for "
              "the `nonzero` form.",
              "size, fill_value: static output length and padding of the one-argument form."),
    "clip": ("arr: an array or scalar (positional only).",
             "min, max: lower and upper bounds (None: unbounded)."),
}

# name: ((input line, output), ...), outputs obtained by running the examples
_EX = {
    "add": (("jnp.add(jnp.array([1, 2, 3]), 2)", "Array([3, 4, 5], dtype=int32)"),
            ("jnp.add(jnp.array([1.0, 2.0]), jnp.array([0.5, 0.25]))",
             "Array([1.5 , 2.25], dtype=float32)")),
    "multiply": (("jnp.multiply(jnp.array([1, 2, 3]), 2.5)",
                  "Array([2.5, 5. , 7.5], dtype=float32, weak_type=True)"),),
    "subtract": (("jnp.subtract(jnp.array([5, 7]), 1)", "Array([4, 6], dtype=int32)"),),
    "true_divide": (("jnp.true_divide(jnp.array([1, 2]), 4)",
                     "Array([0.25, 0.5 ], dtype=float32)"),),
    "exp": (("jnp.exp(jnp.array([0.0, 1.0]))", "Array([1.       , 2.7182817], dtype=float32)"),),
    "log": (("jnp.log(jnp.array([1.0, 0.0]))", "Array([  0., -inf], dtype=float32)"),),
    "sqrt": (("jnp.sqrt(jnp.array([4, 9]))", "Array([2., 3.], dtype=float32)"),),
    "sin": (("jnp.sin(jnp.array([0.0]))", "Array([0.], dtype=float32)"),),
    "tanh": (("jnp.tanh(jnp.array([0.0, 1.0]))", "Array([0.       , 0.7615942], dtype=float32)"),),
    "abs": (("jnp.abs(jnp.array([-2, 0, 3]))", "Array([2, 0, 3], dtype=int32)"),),
    "maximum": (("jnp.maximum(jnp.array([1.0, jnp.nan]), 0.5)",
                 "Array([ 1., nan], dtype=float32)"),),
    "minimum": (("jnp.minimum(jnp.array([1, 5]), jnp.array([3, 2]))",
                 "Array([1, 2], dtype=int32)"),),
    "equal": (("jnp.equal(jnp.array([1, 2]), 2)", "Array([False,  True], dtype=bool)"),),
    "less": (("jnp.less(jnp.array([1, 3]), 2)", "Array([ True, False], dtype=bool)"),),
    "floor": (("jnp.floor(jnp.array([-1.5, 1.5]))", "Array([-2.,  1.], dtype=float32)"),),
    "power": (("jnp.power(jnp.array([2, 3]), 2)", "Array([4, 9], dtype=int32)"),),
    "floor_divide": (("jnp.floor_divide(jnp.array([7, -7]), 2)", "Array([ 3, -4], dtype=int32)"),),
    "remainder": (("jnp.remainder(jnp.array([7, -7]), 3)", "Array([1, 2], dtype=int32)"),),
    "square": (("jnp.square(jnp.array([1.5, -2.0]))", "Array([2.25, 4.  ], dtype=float32)"),),
    "isnan": (("jnp.isnan(jnp.array([1.0, jnp.nan]))", "Array([False,  True], dtype=bool)"),),
    "isfinite": (("jnp.isfinite(jnp.array([1.0, jnp.inf]))",
                  "Array([ True, False], dtype=bool)"),),
    "where": (("jnp.where(jnp.array([True, False]), 1.0, jnp.array([5.0, 6.0]))",
               "Array([1., 6.], dtype=float32)"),),
    "clip": (("jnp.clip(jnp.array([-1, 5, 10]), 0, 6)", "Array([0, 5, 6], dtype=int32)"),),
    "around": (("jnp.round(jnp.array([0.5, 1.5, 2.25]), 1)",
                "Array([0.5, 1.5, 2.2], dtype=float32)"),),
    "logical_and": (("jnp.logical_and(jnp.array([1, 0]), True)",
                     "Array([ True, False], dtype=bool)"),),
    "logaddexp": (("jnp.logaddexp(0.0, 0.0)", "Array(0.6931472, dtype=float32, weak_type=True)"),),
    "fmax": (("jnp.fmax(jnp.array([1.0, jnp.nan]), jnp.array([jnp.nan, 2.0]))",
              "Array([1., 2.], dtype=float32)"),),
    "sign": (("jnp.sign(jnp.array([-3, 0, 2]))", "Array([-1,  0,  1], dtype=int32)"),),
}


def doc(name):
    """The docstring of the ufunc `name`."""
    kind, summary, returns, differs = _T[name]
    args = _EXTRA_ARGS.get(name) or _ARGS[kind]
    lines = [summary, "", "Args:"] + ["  " + a for a in args]
    lines += ["", "Returns:", "  " + returns, ""]
    lines += textwrap.wrap("Differences from NumPy: " + differs, 88)
    ex = _EX.get(name)
    if ex:
        lines += ["", "Example:", "  >>> import astjax.numpy as jnp"]
        for src, out in ex:
            lines += ["  >>> " + src, "  " + out]
    return "\n".join(lines) + "\n"
