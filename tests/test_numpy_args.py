"""The numpy layer's argument handling and results against JAX 0.10.2 (issue 12: R7 results
are arrays, R8 NumPy scalars, R12 axis/shape/int validation, R16 reductions' special
values). Expected error classes are JAX's (checked with a JAX install); every error is also
a located `AstjaxError`."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import Array
from astjax.errors import (AstjaxError, AxisError, AxisNameError, ReductionError,
                           ScalarOverflowError, ShapeError)


# ------------------------------------------- R7: a jnp result is an Array or a Tracer


# jnp functions and the Python-scalar argument patterns JAX returns arrays for
# (f: 0.5, ff: (0.5, 0.25), fff: three floats, i: 2, ii: (3, 2), b: True)
SCALAR_ARGS = {"f": (0.5,), "ff": (0.5, 0.25), "fff": (0.5, 0.25, 0.75), "i": (2,),
               "ii": (3, 2), "b": (True,)}
SCALAR_TABLE = """
abs:f,i,b absolute:f,i,b acos:f,i,b acosh:f,i,b add:ff,ii all:f,i,b allclose:ff,ii,fff
amax:f,i,b amin:f,i,b angle:f,ff,i,ii,b any:f,i,b append:ff,ii arange:f,ff,i,ii,fff
arccos:f,i,b arccosh:f,i,b arcsin:f,i,b arcsinh:f,i,b arctan:f,i,b arctan2:ff,ii
arctanh:f,i,b argmax:f,i,b argmin:f,i,b argwhere:f,i,b around:f,i,ii array:f,i,b
array_equal:ff,ii,fff array_equiv:ff,ii asarray:f,i,b asin:f,i,b asinh:f,i,b atan:f,i,b
atan2:ff,ii atanh:f,i,b atleast_1d:f,ff,i,ii,b,fff atleast_2d:f,ff,i,ii,b,fff
atleast_3d:f,ff,i,ii,b,fff average:f,i,b bartlett:f,i,b bitwise_and:ii bitwise_count:i
bitwise_invert:i,b bitwise_left_shift:ii bitwise_not:i,b bitwise_or:ii
bitwise_right_shift:ii bitwise_xor:ii blackman:f,i,b block:f,i,b
broadcast_arrays:f,ff,i,ii,b,fff broadcast_to:ii cbrt:f,i,b ceil:f,i
clip:f,ff,i,ii,b,fff conj:f,i,b conjugate:f,i,b copy:f,i,b copysign:ff,ii
corrcoef:f,ff,i,ii,b,fff cos:f,i,b cosh:f,i,b count_nonzero:f,i,b cov:f,ff,i,ii,b,fff
cumprod:f,i,b cumsum:f,i,b deg2rad:f,i,b degrees:f,i,b diag_indices:i,ii,b
diagflat:f,i,ii,b divide:ff,ii divmod:ff,ii dot:ff,ii ediff1d:f,ff,i,ii,fff empty:i,b
empty_like:f,i,b equal:ff,ii exp:f,i,b exp2:f,i,b expm1:f,i,b extract:ff,ii eye:i,ii,b
fabs:f,i,b flatnonzero:f,i,b flip:f,i,b float_power:ff,ii floor:f,i floor_divide:ff,ii
fmax:ff,ii fmin:ff,ii fmod:ff,ii frexp:f,i,b full:ii full_like:ff,ii gcd:ii
geomspace:ff,ii greater:ff,ii greater_equal:ff,ii hamming:f,i,b hanning:f,i,b
heaviside:ff,ii histogram:f,i,ii,b histogram_bin_edges:f,i,ii,b hypot:ff,ii i0:f,i,b
identity:i,b imag:f,i,b inner:ff,ii intersect1d:ff,ii,fff invert:i,b isclose:ff,ii,fff
iscomplex:f,i,b isfinite:f,i,b isin:ff,ii,fff isinf:f,i,b isnan:f,i,b isneginf:f,i,b
isposinf:f,i,b isreal:f,i,b kaiser:ff,ii kron:ff,ii lcm:ii ldexp:ii left_shift:ii
less:ff,ii less_equal:ff,ii linspace:ff,ii log:f,i,b log10:f,i,b log1p:f,i,b log2:f,i,b
logaddexp:ff,ii logaddexp2:ff,ii logical_and:ff,ii logical_not:f,i,b logical_or:ff,ii
logical_xor:ff,ii logspace:ff,ii max:f,i,b maximum:ff,ii mean:f,i,b median:f,i,b
min:f,i,b minimum:ff,ii mod:ff,ii modf:f,i,b multiply:ff,ii nan_to_num:f,ff,i,ii,b,fff
nanargmax:f,i,b nanargmin:f,i,b nancumprod:f,i,b nancumsum:f,i,b nanmax:f,i,b
nanmean:f,i,b nanmedian:f,i,b nanmin:f,i,b nanpercentile:ff,ii nanprod:f,i,b
nanquantile:ff nanstd:f,i,b nansum:f,i,b nanvar:f,i,b negative:f,i nextafter:ff,ii
not_equal:ff,ii ones:i,b ones_like:f,i,b outer:ff,ii pad:ff,ii percentile:ff,ii
poly:f,i,b positive:f,i,b pow:ff,ii power:ff,ii prod:f,i,b ptp:f,i quantile:ff
rad2deg:f,i,b radians:f,i,b ravel:f,i,b real:f,i,b reciprocal:f,i,b remainder:ff,ii
repeat:ii resize:ii right_shift:ii rint:f,i,b roll:ff,ii round:f,i,ii
setdiff1d:ff,ii,fff setxor1d:ff,ii,fff sign:f,i signbit:f,i,b sin:f,i,b sinc:f,i,b
sinh:f,i,b spacing:f,i,b sqrt:f,i,b square:f,i squeeze:f,i,b std:f,i,b subtract:ff,ii
sum:f,i,b take:ii tan:f,i,b tanh:f,i,b tile:ii transpose:f,i,b tri:i,ii,b
tril_indices:i,ii,b triu_indices:i,ii,b true_divide:ff,ii trunc:f,i union1d:ff,ii
unique:f,ff,i,ii,b,fff unique_all:f,i,b unique_counts:f,i,b unique_inverse:f,i,b
unique_values:f,i,b var:f,i,b vdot:ff,ii where:fff zeros:i,b zeros_like:f,i,b"""
SCALAR_CASES = [(name, kind) for item in SCALAR_TABLE.split()
                for name, kinds in [item.split(":")] for kind in kinds.split(",")]


def _leaves(r):
    if isinstance(r, (tuple, list)):
        for x in r:
            yield from _leaves(x)
    else:
        yield r


@pytest.mark.parametrize("name,kind", SCALAR_CASES)
def test_jnp_of_python_scalars_returns_arrays(name, kind):
    out = list(_leaves(getattr(jnp, name)(*SCALAR_ARGS[kind])))
    assert out and all(isinstance(x, Array) for x in out), [type(x).__name__ for x in out]


def test_reductions_of_python_scalars_compose():
    assert float(jnp.sum(0.5) * 2.0) == 1.0
    assert bool(jnp.sum(0.5) > 0.0)
    assert float(jnp.max(0.5)) == 0.5 and not jnp.sum(0.5).weak_type  # as JAX
    assert jnp.positive(0.5).weak_type and jnp.positive(0.5).dtype == np.float32


@pytest.mark.filterwarnings("ignore::astjax.errors.SideEffectWarning")  # `seen`, on purpose
@pytest.mark.parametrize("fn", [lambda: jnp.sum(0.5), lambda: jnp.positive(0.5),
                                lambda: jnp.clip(0.5), lambda: jnp.squeeze(0.5),
                                lambda: jnp.real(2), lambda: jnp.round(3)])
def test_staged_jnp_of_python_scalars_are_tracers(fn):
    seen = []

    def f(x):
        r = fn()
        seen.append(type(r))
        return x + r
    astjax.jit(f)(1.0)
    assert seen == [astjax.core.Tracer]

# --------------------------------------------------------- R8: NumPy scalars


def test_numpy_scalars_are_not_python_scalars(x64):
    np.testing.assert_array_equal(jnp.ones(2).at[0].set(np.float64(0.5)), [0.5, 1.0])
    b = jnp.broadcast_to(np.float64(0.5), (2,))
    assert b.dtype == np.float64 and not b.weak_type
    np.testing.assert_array_equal(b, [0.5, 0.5])
    assert jnp.asarray(np.float32(0.5)).dtype == np.float32


def test_numpy_scalars_x32():
    a = jnp.asarray(np.float64(0.5))
    assert a.dtype == np.float32 and float(a) == 0.5
    assert jnp.array([np.float64(1.5), 2]).dtype == np.float32

# ------------------------------------------------- R12: axis, shape and int arguments

X = np.ones((2, 3), np.float32)

# (call, the builtin class JAX raises, a fragment of astjax's message)
R12_CASES = {
    "expand_dims_5": (lambda: jnp.expand_dims(X, 5), ValueError, "axis 5 is out of bounds"),
    "expand_dims_-4": (lambda: jnp.expand_dims(X, -4), ValueError, "axis -4 is out of bounds"),
    "expand_dims_repeated": (lambda: jnp.expand_dims(X, (0, 0)), ValueError,
                             "duplicate value in 'axis'"),
    "swapaxes": (lambda: jnp.swapaxes(X, 0, 4), IndexError, "axis 4 is out of bounds"),
    "sum_str_axis": (lambda: jnp.sum(X, axis="1"), NameError, "unbound axis name: 1"),
    "sum_float_axis": (lambda: jnp.sum(X, axis=1.0), TypeError, "axis must be an integer"),
    "sum_axis_2": (lambda: jnp.sum(X, axis=2), ValueError, "axis 2 is out of bounds"),
    "mean_repeated": (lambda: jnp.mean(X, axis=(0, 0)), ValueError, "duplicate value in 'axis'"),
    "sum_repeated": (lambda: jnp.sum(X, axis=(0, -2)), ValueError,
                     "duplicate value in 'axis': (0, -2)"),
    "moveaxis": (lambda: jnp.moveaxis(X, 0, 3), ValueError, "axis 3 is out of bounds"),
    "squeeze": (lambda: jnp.squeeze(X, 5), ValueError, "axis 5 is out of bounds"),
    "flip": (lambda: jnp.flip(X, 3), ValueError, "axis 3 is out of bounds"),
    "concatenate": (lambda: jnp.concatenate([X, X], axis=2), ValueError, "out of bounds"),
    "stack": (lambda: jnp.stack([X, X], axis=4), ValueError, "axis 4 is out of bounds"),
    "argmax": (lambda: jnp.argmax(X, axis=3), IndexError, "axis 3 is out of bounds"),
    "cumsum": (lambda: jnp.cumsum(X, axis=3), ValueError, "axis 3 is out of bounds"),
    "sort": (lambda: jnp.sort(X, axis=3), ValueError, "axis 3 is out of bounds"),
    "roll": (lambda: jnp.roll(X, 1, axis=3), ValueError, "axis 3 is out of bounds"),
    "take": (lambda: jnp.take(X, np.array([0]), axis=2), ValueError, "out of bounds"),
    "zeros_negative": (lambda: jnp.zeros((2, -1)), TypeError, "nonnegative, got (2, -1)"),
    "ones_negative": (lambda: jnp.ones(-1), TypeError, "nonnegative, got (-1,)"),
    "full_negative": (lambda: jnp.full((2, -3), 1.0), TypeError, "nonnegative"),
    "array_2**40": (lambda: jnp.array(2 ** 40), OverflowError,
                    "Python int 1099511627776 is out of bounds for int32"),
    "array_list": (lambda: jnp.array([1, 2 ** 31]), OverflowError, "2147483648"),
    "array_uint8": (lambda: jnp.array(300, dtype=jnp.uint8), OverflowError, "uint8"),
    "array_negative_uint": (lambda: jnp.array(-1, dtype=jnp.uint32), OverflowError, "-1"),
    "weak_int_operand": (lambda: jnp.multiply(np.ones(3, np.int32), 2 ** 40), OverflowError,
                         "out of bounds for int32"),
}


@pytest.mark.parametrize("case", sorted(R12_CASES))
def test_bad_arguments_raise_jax_class(case):
    call, cls, fragment = R12_CASES[case]
    with pytest.raises(cls) as e:
        call()
    assert isinstance(e.value, AstjaxError)
    assert fragment in str(e.value) and "test_numpy_args.py" in str(e.value)


def test_axis_errors_are_both_value_and_index_errors():
    assert issubclass(AxisError, ValueError) and issubclass(AxisError, IndexError)
    assert issubclass(AxisNameError, NameError)
    assert issubclass(ScalarOverflowError, OverflowError)
    assert issubclass(ShapeError, TypeError)


def test_in_range_arguments_still_work():
    assert jnp.expand_dims(X, -3).shape == (1, 2, 3)
    assert jnp.expand_dims(X, (0, 3)).shape == (1, 2, 3, 1)
    assert jnp.swapaxes(np.zeros((2, 3, 4)), -1, 0).shape == (4, 3, 2)
    assert jnp.sum(X, axis=np.int64(1)).shape == (2,)
    assert int(jnp.array(2 ** 31 - 1)) == 2 ** 31 - 1 and int(jnp.array(-2 ** 31)) == -2 ** 31
    assert jnp.zeros((2, 0)).shape == (2, 0)
    np.testing.assert_array_equal(jnp.transpose(X, (-1, 0)), X.T)


def test_python_int_range_follows_x64(x64):
    assert int(jnp.array(2 ** 40)) == 2 ** 40
    with pytest.raises(OverflowError):
        jnp.array(2 ** 63)

# ------------------------------------------ R16: low-precision means, empty reductions


def test_mean_of_float16_accumulates_in_float32():
    m = jnp.mean(jnp.full(4, 6e4, jnp.float16))
    assert m.dtype == np.float16 and float(m) == 6e4
    assert float(jnp.average(jnp.full(4, 6e4, jnp.float16))) == 6e4
    mb = jnp.mean(jnp.full(4, 6e4, jnp.bfloat16))
    assert mb.dtype == jnp.bfloat16 and float(mb) == 59904.0   # 6e4 in bfloat16, as JAX
    assert float(jnp.mean(jnp.full(4, 6e4, jnp.float16), where=np.array([1, 1, 0, 0], bool))) \
        == 6e4
    assert float(jnp.sum(jnp.full(4, 6e4, jnp.float16))) == np.inf  # JAX does not upcast sums


@pytest.mark.parametrize("call,fragment", [
    (lambda: jnp.max(jnp.zeros(0)), "zero-size array to reduction operation max"),
    (lambda: jnp.min(jnp.zeros(0)), "zero-size array to reduction operation min"),
    (lambda: jnp.max(jnp.zeros((0, 2)), axis=0), "which has no identity"),
    (lambda: jnp.amin(jnp.zeros((2, 0))), "which has no identity"),
    (lambda: jnp.argmax(jnp.zeros(0)), "attempt to get argmax of an empty sequence"),
    (lambda: jnp.argmin(jnp.zeros((0, 2)), axis=0), "attempt to get argmin of an empty"),
    (lambda: jnp.max(jnp.ones(3), where=np.array([True, False, True])), "specify 'initial'"),
])
def test_reductions_without_identity_raise_value_error(call, fragment):
    with pytest.raises(ValueError) as e:
        call()
    assert isinstance(e.value, ReductionError) and fragment in str(e.value)


def test_reductions_without_identity_that_are_defined():
    assert jnp.max(jnp.zeros((0, 2)), axis=1).shape == (0,)
    assert float(jnp.max(jnp.zeros(0), initial=3.0)) == 3.0
    assert float(jnp.max(jnp.array([1.0, 5.0, 2.0]), where=np.array([1, 0, 1], bool),
                         initial=-1.0)) == 2.0
    assert float(jnp.prod(jnp.zeros(0))) == 1.0 and float(jnp.sum(jnp.zeros(0))) == 0.0


def _sum_over_staged_axis(x):
    return x.sum(axis=x.sum().astype(int))


def test_staged_axis_is_a_concretization_error():  # JAX: ConcretizationTypeError (TypeError)
    with pytest.raises(TypeError) as e:
        astjax.jit(_sum_over_staged_axis)(jnp.ones(3))
    assert isinstance(e.value, astjax.errors.TracerIntegerConversionError)


def test_squeeze_of_a_longer_axis_is_a_value_error():  # as JAX
    with pytest.raises(ValueError, match="size not equal to one"):
        jnp.squeeze(X, 0)
