"""Three mechanisms (issues 12/13): `promote_dtypes*` return arrays as JAX's do (a NumPy
operand indexed by a staged index works under vmap/jit); complex -> real casts warn
where JAX warns; every warning astjax emits names the user's file and line (eager,
under jit/grad/vmap, in converted code and in helpers it calls). Reference values and
warning texts are jax 0.10.2's."""
import inspect
import warnings

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import errors, lax
from astjax.numpy.operands import promote_dtypes, promote_dtypes_inexact
from astjax.scipy import interpolate, signal

HERE = __file__
COMPLEX_TEXT = "Casting complex values to real discards the imaginary part"
ASTYPE_TEXT = ("Casting from complex to real dtypes will soon raise a ValueError. Please first "
               "use jnp.real or jnp.imag to take the real/imaginary component of your input.")


def _line(tag):
    """The line number of this file's line that ends with `# <tag>`."""
    for i, text in enumerate(inspect.getsource(inspect.getmodule(_line)).splitlines(), 1):
        if text.rstrip().endswith(f"# {tag}"):
            return i
    raise LookupError(tag)


def _record(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, caught


def _only(caught, category):
    hits = [w for w in caught if issubclass(w.category, category)]
    assert len(hits) == 1, [(w.category.__name__, str(w.message), w.filename, w.lineno)
                            for w in caught]
    return hits[0]


def _at(w, tag):
    assert (w.filename, w.lineno) == (HERE, _line(tag)), (w.filename, w.lineno, str(w.message))

# ------------------------------------------------------------ 1. promotion returns arrays


def test_promote_dtypes_returns_arrays_for_numpy_and_python_scalars():
    outs = promote_dtypes(np.arange(3.0), np.float32(2), 1.5)
    assert all(isinstance(o, astjax.Array) for o in outs), [type(o) for o in outs]
    assert [(o.dtype, o.aval.weak_type) for o in outs] == [(np.float32, False)] * 3
    a, b = promote_dtypes_inexact(np.arange(3), 2)
    assert isinstance(a, astjax.Array) and isinstance(b, astjax.Array)
    assert (a.dtype, b.dtype, b.aval.weak_type) == (np.float32, np.float32, False)
    [w] = promote_dtypes_inexact(2)          # alone, a Python int stays weak (JAX's)
    assert isinstance(w, astjax.Array) and w.aval.weak_type and w.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(a), [0.0, 1.0, 2.0])
    outs = promote_dtypes(2, 3.0)            # all weak: weak arrays (JAX's)
    assert [(o.dtype, o.aval.weak_type) for o in outs] == [(np.float32, True)] * 2


def test_promoted_numpy_operand_takes_a_staged_index():
    def pick(i):
        [x] = promote_dtypes_inexact(np.arange(4, dtype=np.float32))  # no cast: NumPy in
        return x[i] * 2
    np.testing.assert_array_equal(np.asarray(astjax.vmap(pick)(jnp.array([1, 3]))), [2.0, 6.0])
    assert float(astjax.jit(pick)(2)) == 4.0


_GRID = np.linspace(0.0, 1.0, 5, dtype=np.float32)
_VALS = np.array([0.5, -1.0, 2.0, 0.25, 3.0], np.float32)
_X = np.sin(np.arange(16, dtype=np.float32))
_K = np.array([1.0, -2.0, 0.5], np.float32)


@pytest.mark.parametrize("method,want", [("linear", [-0.4, 0.6]), ("nearest", [-1.0, 0.25])])
def test_regular_grid_interpolator_numpy_values_under_vmap_and_jit(method, want):
    # the values (NumPy) are indexed by indices computed from the staged query point
    def at(q):
        return interpolate.RegularGridInterpolator((_GRID,), _VALS, method=method)(
            q[None, None])[0]
    qs = jnp.array([0.3, 0.7])
    np.testing.assert_allclose(np.asarray(astjax.vmap(at)(qs)), want, rtol=1e-5)
    np.testing.assert_allclose(float(astjax.jit(at)(qs[1])), want[1], rtol=1e-5)


@pytest.mark.parametrize("name,fn", [
    ("convolve", lambda: signal.convolve(_X, _K)),
    ("fftconvolve", lambda: signal.fftconvolve(_X, _K)),
    ("correlate", lambda: signal.correlate(_X, _K)),
    ("detrend", lambda: signal.detrend(_X)),
    ("stft", lambda: signal.stft(_X, nperseg=8)[2][0]),
    ("welch", lambda: signal.welch(_X, nperseg=8)[1]),
    ("csd", lambda: signal.csd(_X, _X[::-1].copy(), nperseg=8)[1]),
])
def test_signal_numpy_inputs_with_a_staged_index(name, fn):
    whole = np.asarray(fn())
    got = astjax.vmap(lambda i: fn()[i])(jnp.array([1, 2]))
    np.testing.assert_allclose(np.asarray(got), whole[[1, 2]], rtol=1e-5, atol=1e-6)


def test_signal_python_scalars_are_arrays():
    # JAX: fftconvolve(1.0, 2.0) == 2.0; a scalar against a vector is its ValueError
    assert float(signal.fftconvolve(1.0, 2.0)) == 2.0
    with pytest.raises(errors.ArgumentValueError, match="same dimensionality"):
        signal.fftconvolve(1.0, jnp.ones(3))

# ----------------------------------------------------------- 2. complex -> real casts

_Z = np.array([1 + 2j, 0 + 1j, 2 + 0j], np.complex64)


def _cast(z):
    return lax.convert_element_type(z, jnp.float32)  # cast-line


def _user(z):
    return _cast(z) * 2   # cast-caller


@pytest.mark.parametrize("mode", ["eager", "jit", "grad", "vmap", "numpy"])
def test_convert_element_type_complex_to_real_warns_at_the_users_line(mode):
    z = jnp.asarray(_Z)
    run = {"eager": lambda: _cast(z), "jit": lambda: astjax.jit(_cast)(z),
           "grad": lambda: astjax.grad(lambda x: _cast(x * (1 + 1j)).sum())(jnp.ones(3)),
           "vmap": lambda: astjax.vmap(_cast)(z), "numpy": lambda: _cast(_Z)}[mode]
    out, caught = _record(run)
    w = _only(caught, np.exceptions.ComplexWarning)
    assert str(w.message) == COMPLEX_TEXT
    _at(w, "cast-line")
    if mode != "grad":
        np.testing.assert_array_equal(np.asarray(out), [1.0, 0.0, 2.0])


def test_nested_helper_in_converted_code_names_the_helper_line():
    out, caught = _record(lambda: astjax.jit(_user)(jnp.asarray(_Z)))
    _at(_only(caught, np.exceptions.ComplexWarning), "cast-line")
    np.testing.assert_array_equal(np.asarray(out), [2.0, 0.0, 4.0])


def test_complex_casts_through_jnp_warn_as_jax():
    z = jnp.asarray(_Z)
    for tag, fn in [("asarray-array", lambda: jnp.asarray(z, dtype=jnp.float32)),  # asarray-array
                    ("asarray-numpy", lambda: jnp.asarray(_Z, dtype=jnp.float32)),  # asarray-numpy
                    ("at-set", lambda: jnp.zeros(3).at[1].set(z[0])),  # at-set
                    ("full", lambda: jnp.full(2, z[0], jnp.float32))]:  # full
        out, caught = _record(fn)
        w = _only(caught, np.exceptions.ComplexWarning)
        assert str(w.message) == COMPLEX_TEXT
        _at(w, tag)
    # a NumPy complex array to bool is NumPy's truth value, with no warning
    out, caught = _record(lambda: jnp.asarray(_Z, dtype=bool))
    assert not caught and np.asarray(out).tolist() == [True, True, True]
    # the host conversion of an astjax array: NumPy's ComplexWarning at the user's line
    out, caught = _record(lambda: np.asarray(z, np.float32))  # host-cast
    _at(_only(caught, np.exceptions.ComplexWarning), "host-cast")
    np.testing.assert_array_equal(out, [1.0, 0.0, 2.0])


def test_astype_complex_to_real_is_jaxs_deprecation_warning():
    z = jnp.asarray(_Z)
    out, caught = _record(lambda: z.astype(jnp.int32))  # astype-int
    w = _only(caught, DeprecationWarning)
    assert str(w.message) == ASTYPE_TEXT and not [c for c in caught if c is not w]
    _at(w, "astype-int")
    np.testing.assert_array_equal(np.asarray(out), [1, 0, 2])
    out, caught = _record(lambda: astjax.jit(lambda v: jnp.astype(v, jnp.float32))(z))
    assert str(_only(caught, DeprecationWarning).message) == ASTYPE_TEXT
    # complex -> bool is a truth value (JAX: x != 0), silently; 1j is True
    out, caught = _record(lambda: z.astype(bool))
    assert not caught and np.asarray(out).tolist() == [True, True, True]
    out, caught = _record(lambda: jnp.astype(jnp.array([0j, 1j]), bool))
    assert np.asarray(out).tolist() == [False, True]
    # a Python complex is made an array first (JAX's answer, not NumPy's TypeError)
    out, caught = _record(lambda: jnp.astype(1j, jnp.float32))
    assert float(out) == 0.0 and _only(caught, DeprecationWarning)


def test_python_complex_to_real_dtype_is_numpys_type_error():
    for fn in (lambda: jnp.array(1 + 2j, jnp.float32), lambda: jnp.asarray([1j, 2], jnp.int32),
               lambda: jnp.float32(1j), lambda: lax.convert_element_type(1j, jnp.float32)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            with pytest.raises(TypeError, match=r"argument must be a string.* not 'complex'") as e:
                fn()
        assert isinstance(e.value, errors.AstjaxError)
    assert bool(jnp.asarray(1j, dtype=bool))   # NumPy's truth value, as JAX's


def test_no_warning_where_jax_casts_silently():
    z = jnp.asarray(_Z)

    def f(x):
        w = x.astype(jnp.complex64) * (1 + 2j)
        return (jnp.abs(w) + jnp.real(w) + jnp.imag(w)).sum()
    for fn in (lambda: lax.convert_element_type(z, jnp.complex64), lambda: jnp.real(z),
               lambda: jnp.abs(z), lambda: jnp.where(True, z, 0.0),
               lambda: astjax.grad(f)(jnp.ones(3)), lambda: astjax.jit(astjax.grad(f))(jnp.ones(3)),
               lambda: astjax.vmap(astjax.grad(f))(jnp.ones((2, 3)))):
        _, caught = _record(fn)
        assert not caught, [(str(w.message), w.filename, w.lineno) for w in caught]


def test_printed_derivative_source_runs_without_cast_warnings():
    def f(x):
        return jnp.abs(x.astype(jnp.complex64) * (1 + 2j)).sum()
    g = astjax.grad(f)
    text = astjax.source(g, jnp.ones(3))
    assert "lax.real(" in text and ".astype(jnp.float32)" not in text
    ns = {}
    exec(compile(text, "<grad_f>", "exec"), ns)  # noqa: S102 -- the printed source
    out, caught = _record(lambda: ns["grad_f"](jnp.ones(3)))
    assert not caught, [str(w.message) for w in caught]
    np.testing.assert_allclose(np.asarray(out), np.asarray(g(jnp.ones(3))), rtol=1e-6)

# ----------------------------------------------------- 3. warnings name the user's line


def _ranks(x):
    return jnp.add(x, jnp.ones((2, 3)))  # rank-line


def _spectrum(x):
    return signal.stft(x, nperseg=4)[2]  # stft-line


def _outer(x):
    return jnp.abs(_spectrum(x)).sum()


@pytest.mark.parametrize("mode", ["eager", "jit", "grad", "vmap"])
def test_library_warning_in_converted_helper_names_the_users_line(mode):
    x = jnp.ones(8) * 1j
    run = {"eager": lambda: _outer(x), "jit": lambda: astjax.jit(_outer)(x),
           "grad": lambda: astjax.grad(lambda v: _outer(v * 1j))(jnp.ones(8)),
           "vmap": lambda: astjax.vmap(_outer)(jnp.stack([x, x]))}[mode]
    _, caught = _record(run)
    w = _only(caught, UserWarning)
    assert str(w.message) == "Input data is complex, switching to return_onesided=False"
    _at(w, "stft-line")


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_rank_promotion_warning_names_the_users_line(mode):
    with astjax.numpy_rank_promotion("warn"):
        _, caught = _record(lambda: _ranks(jnp.ones(3)) if mode == "eager"
                            else astjax.jit(_ranks)(jnp.ones(3)))
    w = _only(caught, UserWarning)
    assert str(w.message).startswith("Following NumPy automatic rank promotion for add")
    _at(w, "rank-line")


def test_x64_truncation_and_jit_device_warnings_name_the_users_line():
    _, caught = _record(lambda: jnp.zeros(2, jnp.float64))  # x64-line
    _at(_only(caught, UserWarning), "x64-line")
    _, caught = _record(lambda: astjax.jit(_ranks, device=astjax.devices()[0]))  # device-line
    _at(_only(caught, DeprecationWarning), "device-line")


def test_user_stacklevel_skips_astjax_frames_only():
    from astjax import user_warnings
    assert user_warnings.user_stacklevel() == 1   # called from here: this frame
    _, caught = _record(lambda: user_warnings.warn("hello", RuntimeWarning))  # direct-line
    w = _only(caught, RuntimeWarning)
    assert str(w.message) == "hello"
    _at(w, "direct-line")


def test_scatter_of_an_unsafe_value_type_is_jaxs_future_warning():
    x = jnp.arange(3)
    out, caught = _record(lambda: x.at[0].set(1.5))  # scatter-line
    w = _only(caught, FutureWarning)
    assert str(w.message) == (
        "scatter inputs have incompatible types: cannot safely cast value from dtype=float32 "
        "to dtype=int32 with jax_numpy_dtype_promotion=standard. In future JAX releases this "
        "will result in an error.")
    _at(w, "scatter-line")
    assert np.asarray(out).tolist() == [1, 1, 2]
    # complex into a real array: JAX's FutureWarning and ComplexWarning
    out, caught = _record(lambda: jnp.zeros(2).at[0].set(1 + 2j))
    assert {c.category for c in caught} == {FutureWarning, np.exceptions.ComplexWarning}
    assert np.asarray(out).tolist() == [1.0, 0.0]
    # safe casts (a weak int into floats, a small float into a wider one) are silent
    for fn in (lambda: jnp.zeros(3).at[0].set(1), lambda: jnp.zeros(3).at[0].set(jnp.float16(1)),
               lambda: jnp.zeros(3, jnp.int8).at[0].add(3), lambda: jnp.zeros(3).at[0].set(2.5)):
        _, caught = _record(fn)
        assert not caught, [str(c.message) for c in caught]
