"""Generate docs/api.md: which names of jax.numpy (and jax.numpy.linalg, jax.numpy.fft,
jax.scipy.linalg, jax.lax.linalg, jax.nn, jax.random, jax.scipy.special) astjax implements.

The name lists below were generated once from jax 0.10.2 (kinds: 'f' function,
't' type or dtype, 'c' constant, 'm' module); astjax's side is read from its
modules' actual attributes. Run `python docs/gen_api.py` to rewrite docs/api.md;
`python docs/gen_api.py --check` exits 1 when the file is out of date
(tests/test_api_coverage.py runs the same check)."""
from __future__ import annotations

import importlib
import os
import sys

NAMES = {
    'jax.numpy': [
        ('ComplexWarning', 't'), ('abs', 'f'), ('absolute', 'f'), ('acos', 'f'),
        ('acosh', 'f'), ('add', 'f'), ('all', 'f'), ('allclose', 'f'), ('amax', 'f'),
        ('amin', 'f'), ('angle', 'f'), ('any', 'f'), ('append', 'f'),
        ('apply_along_axis', 'f'), ('apply_over_axes', 'f'), ('arange', 'f'), ('arccos', 'f'),
        ('arccosh', 'f'), ('arcsin', 'f'), ('arcsinh', 'f'), ('arctan', 'f'), ('arctan2', 'f'),
        ('arctanh', 'f'), ('argmax', 'f'), ('argmin', 'f'), ('argpartition', 'f'),
        ('argsort', 'f'), ('argwhere', 'f'), ('around', 'f'), ('array', 'f'),
        ('array_equal', 'f'), ('array_equiv', 'f'), ('array_repr', 'f'), ('array_split', 'f'),
        ('array_str', 'f'), ('asarray', 'f'), ('asin', 'f'), ('asinh', 'f'), ('astype', 'f'),
        ('atan', 'f'), ('atan2', 'f'), ('atanh', 'f'), ('atleast_1d', 'f'),
        ('atleast_2d', 'f'), ('atleast_3d', 'f'), ('average', 'f'), ('bartlett', 'f'),
        ('bfloat16', 't'), ('bincount', 'f'), ('bitwise_and', 'f'), ('bitwise_count', 'f'),
        ('bitwise_invert', 'f'), ('bitwise_left_shift', 'f'), ('bitwise_not', 'f'),
        ('bitwise_or', 'f'), ('bitwise_right_shift', 'f'), ('bitwise_xor', 'f'),
        ('blackman', 'f'), ('block', 'f'), ('bool', 't'), ('bool_', 't'),
        ('broadcast_arrays', 'f'), ('broadcast_shapes', 'f'), ('broadcast_to', 'f'),
        ('c_', 'c'), ('can_cast', 'f'), ('cbrt', 'f'), ('cdouble', 't'), ('ceil', 'f'),
        ('character', 't'), ('choose', 'f'), ('clip', 'f'), ('column_stack', 'f'),
        ('complex128', 't'), ('complex64', 't'), ('complex_', 't'), ('complexfloating', 't'),
        ('compress', 'f'), ('concat', 'f'), ('concatenate', 'f'), ('conj', 'f'),
        ('conjugate', 'f'), ('convolve', 'f'), ('copy', 'f'), ('copysign', 'f'),
        ('corrcoef', 'f'), ('correlate', 'f'), ('cos', 'f'), ('cosh', 'f'),
        ('count_nonzero', 'f'), ('cov', 'f'), ('cross', 'f'), ('csingle', 't'),
        ('cumprod', 'f'), ('cumsum', 'f'), ('cumulative_prod', 'f'), ('cumulative_sum', 'f'),
        ('deg2rad', 'f'), ('degrees', 'f'), ('delete', 'f'), ('diag', 'f'),
        ('diag_indices', 'f'), ('diag_indices_from', 'f'), ('diagflat', 'f'),
        ('diagonal', 'f'), ('diff', 'f'), ('digitize', 'f'), ('divide', 'f'), ('divmod', 'f'),
        ('dot', 'f'), ('double', 't'), ('dsplit', 'f'), ('dstack', 'f'), ('dtype', 't'),
        ('e', 'c'), ('ediff1d', 'f'), ('einsum', 'f'), ('einsum_path', 'f'), ('empty', 'f'),
        ('empty_like', 'f'), ('equal', 'f'), ('euler_gamma', 'c'), ('exp', 'f'), ('exp2', 'f'),
        ('expand_dims', 'f'), ('expm1', 'f'), ('extract', 'f'), ('eye', 'f'), ('fabs', 'f'),
        ('fft', 'm'), ('fill_diagonal', 'f'), ('finfo', 't'), ('flatnonzero', 'f'),
        ('flexible', 't'), ('flip', 'f'), ('fliplr', 'f'), ('flipud', 'f'), ('float16', 't'),
        ('float32', 't'), ('float4_e2m1fn', 't'), ('float64', 't'), ('float6_e2m3fn', 't'),
        ('float6_e3m2fn', 't'), ('float8_e3m4', 't'), ('float8_e4m3', 't'),
        ('float8_e4m3b11fnuz', 't'), ('float8_e4m3fn', 't'), ('float8_e4m3fnuz', 't'),
        ('float8_e5m2', 't'), ('float8_e5m2fnuz', 't'), ('float8_e8m0fnu', 't'),
        ('float_', 't'), ('float_power', 'f'), ('floating', 't'), ('floor', 'f'),
        ('floor_divide', 'f'), ('fmax', 'f'), ('fmin', 'f'), ('fmod', 'f'), ('frexp', 'f'),
        ('from_dlpack', 'f'), ('frombuffer', 'f'), ('fromfile', 'f'), ('fromfunction', 'f'),
        ('fromiter', 'f'), ('frompyfunc', 'f'), ('fromstring', 'f'), ('full', 'f'),
        ('full_like', 'f'), ('gcd', 'f'), ('generic', 't'), ('geomspace', 'f'),
        ('get_printoptions', 'f'), ('gradient', 'f'), ('greater', 'f'), ('greater_equal', 'f'),
        ('hamming', 'f'), ('hanning', 'f'), ('heaviside', 'f'), ('histogram', 'f'),
        ('histogram2d', 'f'), ('histogram_bin_edges', 'f'), ('histogramdd', 'f'),
        ('hsplit', 'f'), ('hstack', 'f'), ('hypot', 'f'), ('i0', 'f'), ('identity', 'f'),
        ('iinfo', 't'), ('imag', 'f'), ('index_exp', 'c'), ('indices', 'f'), ('inexact', 't'),
        ('inf', 'c'), ('inner', 'f'), ('insert', 'f'), ('int1', 't'), ('int16', 't'),
        ('int2', 't'), ('int32', 't'), ('int4', 't'), ('int64', 't'), ('int8', 't'),
        ('int_', 't'), ('integer', 't'), ('interp', 'f'), ('intersect1d', 'f'),
        ('invert', 'f'), ('isclose', 'f'), ('iscomplex', 'f'), ('iscomplexobj', 'f'),
        ('isdtype', 'f'), ('isfinite', 'f'), ('isin', 'f'), ('isinf', 'f'), ('isnan', 'f'),
        ('isneginf', 'f'), ('isposinf', 'f'), ('isreal', 'f'), ('isrealobj', 'f'),
        ('isscalar', 'f'), ('issubdtype', 'f'), ('iterable', 'f'), ('ix_', 'f'),
        ('kaiser', 'f'), ('kron', 'f'), ('lcm', 'f'), ('ldexp', 'f'), ('left_shift', 'f'),
        ('less', 'f'), ('less_equal', 'f'), ('lexsort', 'f'), ('linalg', 'm'),
        ('linspace', 'f'), ('load', 'f'), ('log', 'f'), ('log10', 'f'), ('log1p', 'f'),
        ('log2', 'f'), ('logaddexp', 'f'), ('logaddexp2', 'f'), ('logical_and', 'f'),
        ('logical_not', 'f'), ('logical_or', 'f'), ('logical_xor', 'f'), ('logspace', 'f'),
        ('mask_indices', 'f'), ('matmul', 'f'), ('matrix_transpose', 'f'), ('matvec', 'f'),
        ('max', 'f'), ('maximum', 'f'), ('mean', 'f'), ('median', 'f'), ('meshgrid', 'f'),
        ('mgrid', 'c'), ('min', 'f'), ('minimum', 'f'), ('mod', 'f'), ('modf', 'f'),
        ('moveaxis', 'f'), ('multiply', 'f'), ('nan', 'c'), ('nan_to_num', 'f'),
        ('nanargmax', 'f'), ('nanargmin', 'f'), ('nancumprod', 'f'), ('nancumsum', 'f'),
        ('nanmax', 'f'), ('nanmean', 'f'), ('nanmedian', 'f'), ('nanmin', 'f'),
        ('nanpercentile', 'f'), ('nanprod', 'f'), ('nanquantile', 'f'), ('nanstd', 'f'),
        ('nansum', 'f'), ('nanvar', 'f'), ('ndarray', 't'), ('ndim', 'f'), ('negative', 'f'),
        ('newaxis', 'c'), ('nextafter', 'f'), ('nonzero', 'f'), ('not_equal', 'f'),
        ('number', 't'), ('object_', 't'), ('ogrid', 'c'), ('ones', 'f'), ('ones_like', 'f'),
        ('outer', 'f'), ('packbits', 'f'), ('pad', 'f'), ('partition', 'f'),
        ('percentile', 'f'), ('permute_dims', 'f'), ('pi', 'c'), ('piecewise', 'f'),
        ('place', 'f'), ('poly', 'f'), ('polyadd', 'f'), ('polyder', 'f'), ('polydiv', 'f'),
        ('polyfit', 'f'), ('polyint', 'f'), ('polymul', 'f'), ('polysub', 'f'),
        ('polyval', 'f'), ('positive', 'f'), ('pow', 'f'), ('power', 'f'),
        ('printoptions', 'f'), ('prod', 'f'), ('promote_types', 'f'), ('ptp', 'f'),
        ('put', 'f'), ('put_along_axis', 'f'), ('quantile', 'f'), ('r_', 'c'),
        ('rad2deg', 'f'), ('radians', 'f'), ('ravel', 'f'), ('ravel_multi_index', 'f'),
        ('real', 'f'), ('reciprocal', 'f'), ('remainder', 'f'), ('repeat', 'f'),
        ('reshape', 'f'), ('resize', 'f'), ('result_type', 'f'), ('right_shift', 'f'),
        ('rint', 'f'), ('roll', 'f'), ('rollaxis', 'f'), ('roots', 'f'), ('rot90', 'f'),
        ('round', 'f'), ('s_', 'c'), ('save', 'f'), ('savez', 'f'), ('searchsorted', 'f'),
        ('select', 'f'), ('set_printoptions', 'f'), ('setdiff1d', 'f'), ('setxor1d', 'f'),
        ('shape', 'f'), ('sign', 'f'), ('signbit', 'f'), ('signedinteger', 't'), ('sin', 'f'),
        ('sinc', 'f'), ('single', 't'), ('sinh', 'f'), ('size', 'f'), ('sort', 'f'),
        ('sort_complex', 'f'), ('spacing', 'f'), ('split', 'f'), ('sqrt', 'f'),
        ('square', 'f'), ('squeeze', 'f'), ('stack', 'f'), ('std', 'f'), ('subtract', 'f'),
        ('sum', 'f'), ('swapaxes', 'f'), ('take', 'f'), ('take_along_axis', 'f'), ('tan', 'f'),
        ('tanh', 'f'), ('tensordot', 'f'), ('tile', 'f'), ('trace', 'f'), ('transpose', 'f'),
        ('trapezoid', 'f'), ('tri', 'f'), ('tril', 'f'), ('tril_indices', 'f'),
        ('tril_indices_from', 'f'), ('trim_zeros', 'f'), ('triu', 'f'), ('triu_indices', 'f'),
        ('triu_indices_from', 'f'), ('true_divide', 'f'), ('trunc', 'f'), ('ufunc', 't'),
        ('uint', 't'), ('uint1', 't'), ('uint16', 't'), ('uint2', 't'), ('uint32', 't'),
        ('uint4', 't'), ('uint64', 't'), ('uint8', 't'), ('union1d', 'f'), ('unique', 'f'),
        ('unique_all', 'f'), ('unique_counts', 'f'), ('unique_inverse', 'f'),
        ('unique_values', 'f'), ('unpackbits', 'f'), ('unravel_index', 'f'),
        ('unsignedinteger', 't'), ('unstack', 'f'), ('unwrap', 'f'), ('vander', 'f'),
        ('var', 'f'), ('vdot', 'f'), ('vecdot', 'f'), ('vecmat', 'f'), ('vectorize', 'f'),
        ('vsplit', 'f'), ('vstack', 'f'), ('where', 'f'), ('zeros', 'f'), ('zeros_like', 'f'),
    ],
    'jax.numpy.linalg': [
        ('cholesky', 'f'), ('cond', 'f'), ('cross', 'f'), ('det', 'f'), ('diagonal', 'f'),
        ('eig', 'f'), ('eigh', 'f'), ('eigvals', 'f'), ('eigvalsh', 'f'), ('inv', 'f'),
        ('lstsq', 'f'), ('matmul', 'f'), ('matrix_norm', 'f'), ('matrix_power', 'f'),
        ('matrix_rank', 'f'), ('matrix_transpose', 'f'), ('multi_dot', 'f'), ('norm', 'f'),
        ('outer', 'f'), ('pinv', 'f'), ('qr', 'f'), ('slogdet', 'f'), ('solve', 'f'),
        ('svd', 'f'), ('svdvals', 'f'), ('tensordot', 'f'), ('tensorinv', 'f'),
        ('tensorsolve', 'f'), ('trace', 'f'), ('vecdot', 'f'), ('vector_norm', 'f'),
    ],
    'jax.numpy.fft': [
        ('fft', 'f'), ('fft2', 'f'), ('fftfreq', 'f'), ('fftn', 'f'), ('fftshift', 'f'),
        ('hfft', 'f'), ('ifft', 'f'), ('ifft2', 'f'), ('ifftn', 'f'), ('ifftshift', 'f'),
        ('ihfft', 'f'), ('irfft', 'f'), ('irfft2', 'f'), ('irfftn', 'f'), ('rfft', 'f'),
        ('rfft2', 'f'), ('rfftfreq', 'f'), ('rfftn', 'f'),
    ],
    'jax.scipy.linalg': [
        ('block_diag', 'f'), ('cho_factor', 'f'), ('cho_solve', 'f'), ('cholesky', 'f'),
        ('circulant', 'f'), ('companion', 'f'), ('convolution_matrix', 'f'), ('det', 'f'),
        ('dft', 'f'), ('eigh', 'f'), ('eigh_tridiagonal', 'f'), ('expm', 'f'),
        ('expm_frechet', 'f'), ('fiedler', 'f'), ('fiedler_companion', 'f'), ('funm', 'f'),
        ('hadamard', 'f'), ('hankel', 'f'), ('helmert', 'f'), ('hessenberg', 'f'),
        ('hilbert', 'f'), ('inv', 'f'), ('invhilbert', 'f'), ('invpascal', 'f'),
        ('leslie', 'f'), ('lu', 'f'), ('lu_factor', 'f'), ('lu_solve', 'f'),
        ('pascal', 'f'), ('polar', 'f'), ('qr', 'f'), ('qr_multiply', 'f'),
        ('rsf2csf', 'f'), ('schur', 'f'), ('solve', 'f'), ('solve_sylvester', 'f'),
        ('solve_triangular', 'f'), ('sqrtm', 'f'), ('svd', 'f'), ('toeplitz', 'f'),
    ],
    'jax.lax.linalg': [
        ('EigImplementation', 't'), ('EighImplementation', 't'), ('SvdAlgorithm', 't'),
        ('cholesky', 'f'), ('cholesky_p', 'c'), ('cholesky_update', 'f'),
        ('cholesky_update_p', 'c'), ('eig', 'f'), ('eig_p', 'c'), ('eigh', 'f'),
        ('eigh_p', 'c'), ('hessenberg', 'f'), ('hessenberg_p', 'c'),
        ('householder_product', 'f'), ('householder_product_p', 'c'), ('lu', 'f'),
        ('lu_p', 'c'), ('lu_pivots_to_permutation', 'f'),
        ('lu_pivots_to_permutation_p', 'c'), ('ormqr', 'f'), ('ormqr_p', 'c'),
        ('qdwh', 'f'), ('qr', 'f'), ('qr_p', 'c'), ('schur', 'f'), ('schur_p', 'c'),
        ('svd', 'f'), ('svd_p', 'c'), ('symmetric_product', 'f'),
        ('symmetric_product_p', 'c'), ('triangular_solve', 'f'),
        ('triangular_solve_p', 'c'), ('tridiagonal', 'f'), ('tridiagonal_p', 'c'),
        ('tridiagonal_solve', 'f'), ('tridiagonal_solve_p', 'c'),
    ],
    'jax.nn': [
        ('celu', 'f'), ('dot_product_attention', 'f'), ('elu', 'f'), ('gelu', 'f'),
        ('get_scaled_dot_general_config', 'f'), ('glu', 'f'), ('hard_sigmoid', 'f'),
        ('hard_silu', 'f'), ('hard_swish', 'f'), ('hard_tanh', 'f'), ('identity', 'f'),
        ('initializers', 'm'), ('leaky_relu', 'f'), ('log1mexp', 'f'), ('log_sigmoid', 'f'),
        ('log_softmax', 'f'), ('logmeanexp', 'f'), ('logsumexp', 'f'), ('mish', 'f'),
        ('one_hot', 'f'), ('relu', 'f'), ('relu6', 'f'), ('scaled_dot_general', 'f'),
        ('scaled_matmul', 'f'), ('selu', 'f'), ('sigmoid', 'f'), ('silu', 'f'),
        ('soft_sign', 'f'), ('softmax', 'f'), ('softplus', 'f'), ('sparse_plus', 'f'),
        ('sparse_sigmoid', 'f'), ('squareplus', 'f'), ('standardize', 'f'), ('swish', 'f'),
        ('tanh', 'f'),
    ],
    'jax.random': [
        ('PRNGKey', 'f'), ('ball', 'f'), ('bernoulli', 'f'), ('beta', 'f'), ('binomial', 'f'),
        ('bits', 'f'), ('categorical', 'f'), ('cauchy', 'f'), ('chisquare', 'f'),
        ('choice', 'f'), ('clone', 'f'), ('dirichlet', 'f'), ('double_sided_maxwell', 'f'),
        ('exponential', 'f'), ('f', 'f'), ('fold_in', 'f'), ('gamma', 'f'),
        ('generalized_normal', 'f'), ('geometric', 'f'), ('gumbel', 'f'), ('key', 'f'),
        ('key_data', 'f'), ('key_dtype', 'f'), ('key_impl', 'f'), ('laplace', 'f'),
        ('loggamma', 'f'), ('logistic', 'f'), ('lognormal', 'f'), ('maxwell', 'f'),
        ('multinomial', 'f'), ('multivariate_normal', 'f'), ('normal', 'f'),
        ('orthogonal', 'f'), ('pareto', 'f'), ('permutation', 'f'), ('poisson', 'f'),
        ('rademacher', 'f'), ('randint', 'f'), ('random_gamma_p', 'c'), ('rayleigh', 'f'),
        ('split', 'f'), ('t', 'f'), ('triangular', 'f'), ('truncated_normal', 'f'),
        ('uniform', 'f'), ('wald', 'f'), ('weibull_min', 'f'), ('wrap_key_data', 'f'),
    ],
    'jax.scipy.special': [
        ('bernoulli', 'f'), ('bessel_jn', 'f'), ('beta', 'f'), ('betainc', 'f'),
        ('betaln', 'f'), ('boxcox', 'f'), ('boxcox1p', 'f'), ('comb', 'f'), ('dawsn', 'f'),
        ('digamma', 'f'), ('entr', 'f'), ('erf', 'f'), ('erfc', 'f'), ('erfcx', 'f'),
        ('erfinv', 'f'), ('exp1', 'f'), ('expi', 'f'), ('expit', 'f'), ('expn', 'f'),
        ('factorial', 'f'), ('fresnel', 'f'), ('gamma', 'f'), ('gammainc', 'f'),
        ('gammaincc', 'f'), ('gammaln', 'f'), ('gammasgn', 'f'), ('hyp1f1', 'f'),
        ('hyp2f1', 'f'), ('i0', 'f'), ('i0e', 'f'), ('i1', 'f'), ('i1e', 'f'), ('kl_div', 'f'),
        ('log_ndtr', 'f'), ('log_softmax', 'f'), ('loggamma', 'f'), ('logit', 'f'),
        ('logsumexp', 'f'), ('multigammaln', 'f'), ('ndtr', 'f'), ('ndtri', 'f'),
        ('owens_t', 'f'), ('poch', 'f'), ('polygamma', 'f'), ('rel_entr', 'f'), ('sici', 'f'),
        ('softmax', 'f'), ('spence', 'f'), ('sph_harm_y', 'f'), ('wofz', 'f'),
        ('xlog1py', 'f'), ('xlogy', 'f'), ('zeta', 'f'),
    ],
}

_ASTJAX = {"jax.numpy": "astjax.numpy", "jax.numpy.linalg": "astjax.numpy.linalg",
           "jax.numpy.fft": "astjax.numpy.fft", "jax.scipy.linalg": "astjax.scipy.linalg",
           "jax.lax.linalg": "astjax.lax_linalg",
           "jax.nn": "astjax.nn", "jax.random": "astjax.random",
           "jax.scipy.special": "astjax.scipy.special"}
_KIND = {"f": "function", "t": "type/dtype", "c": "constant", "m": "module"}
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "api.md")


def implemented(module_name: str, name: str) -> bool:
    mod = importlib.import_module(_ASTJAX[module_name])
    return name in vars(mod)


def coverage():
    """{jax module: [(name, kind, implemented)]}"""
    return {m: [(n, k, implemented(m, n)) for n, k in names] for m, names in NAMES.items()}


def render() -> str:
    cov = coverage()
    lines = ["# astjax API coverage", "",
             "Generated by `docs/gen_api.py` from JAX 0.10.2's public names and astjax's "
             "actual attributes; `tests/test_api_coverage.py` keeps it in sync. "
             "A missing name raises `NotImplementedInAstjaxError` when used.", ""]
    lines += ["| module | implemented | functions implemented | missing |", "|---|---|---|---|"]
    for m, rows in cov.items():
        done = sum(r[2] for r in rows)
        fdone = sum(r[2] for r in rows if r[1] == "f")
        ftotal = sum(1 for r in rows if r[1] == "f")
        lines.append(f"| `{m}` | {done} / {len(rows)} | {fdone} / {ftotal} | "
                     f"{len(rows) - done} |")
    for m, rows in cov.items():
        lines += ["", f"## `{m}`", "", "| name | kind | astjax |", "|---|---|---|"]
        for n, k, ok in rows:
            lines.append(f"| `{n}` | {_KIND[k]} | {'implemented' if ok else 'missing'} |")
        missing = [n for n, _, ok in rows if not ok]
        lines += ["", f"Missing in `{_ASTJAX[m]}`: " + (", ".join(f"`{n}`" for n in missing)
                                                      if missing else "none") + "."]
    return "\n".join(lines) + "\n"


def main(argv):
    text = render()
    if "--check" in argv:
        with open(OUT) as f:
            if f.read() != text:
                print("docs/api.md is out of date: run python docs/gen_api.py")
                return 1
        return 0
    with open(OUT, "w") as f:
        f.write(text)
    cov = coverage()["jax.numpy"]
    print(f"wrote {OUT}: {sum(r[2] for r in cov)} of {len(cov)} jax.numpy names")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(HERE))
    sys.exit(main(sys.argv[1:]))
