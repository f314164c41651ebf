"""`astjax.lax`: JAX's lax API, one thin function per primitive plus the usual
conveniences (`lax.dot`, `lax.broadcast`, ...). Operands must agree in dtype, as in
JAX: a Python scalar counts as a weak value of its default dtype (`lax.add(x_f32, 1.5)`
runs, `lax.add(x_f32, 1)` and, under x64, `lax.add(x_f32, 1.5)` are TypeErrors).

Each wrapper is defined in its primitive's block (`astjax/primitives/`); the list of
them is `astjax/primitives/ops.py`."""
from .primitives.ops import *  # noqa: F401,F403
from .primitives.ops import _index_scalar  # noqa: F401

# The primitive objects JAX's `jax.lax` exports as `<name>_p` (custom interpreters
# dispatch on them: `if eqn.primitive is lax.exp_p`), for every one astjax has.
from .primitives.arithmetic import (abs_p, add_p, ceil_p, div_p, floor_p, integer_pow_p,  # noqa: E402,F401
                                    max_p, min_p, mul_p, neg_p, rem_p, round_p, sign_p, square_p,
                                    sub_p)
from .primitives.comparisons import (and_p, clz_p, eq_p, eq_to_p, ge_p, gt_p,  # noqa: E402,F401
                                     is_finite_p, le_p, le_to_p, lt_p, lt_to_p, ne_p, not_p,
                                     or_p, population_count_p,
                                     shift_left_p, shift_right_arithmetic_p,
                                     shift_right_logical_p, xor_p)
from .primitives.elementwise import (acos_p, acosh_p, asin_p, asinh_p, atan2_p, atan_p,  # noqa: E402,F401
                                     atanh_p, cbrt_p, complex_p, conj_p, cos_p, cosh_p,
                                     digamma_p, erf_inv_p, erf_p, erfc_p, exp2_p, exp_p,
                                     expm1_p, imag_p, lgamma_p, log1p_p, log_p, logistic_p,
                                     nextafter_p, polygamma_p, pow_p, real_p, rsqrt_p, sin_p,
                                     sinh_p, sqrt_p, tan_p, tanh_p)
from .primitives.structural import (bitcast_convert_type_p, broadcast_in_dim_p,  # noqa: E402,F401
                                    convert_element_type_p, iota_p, reshape_p, squeeze_p,
                                    transpose_p)
from .primitives.concat_pad import concatenate_p, pad_p, rev_p  # noqa: E402,F401
from .primitives.selection import clamp_p, select_n_p  # noqa: E402,F401
from .primitives.slicing import dynamic_slice_p, dynamic_update_slice_p, slice_p  # noqa: E402,F401
from .primitives.reductions import (dot_general_p, reduce_and_p, reduce_max_p,  # noqa: E402,F401
                                    reduce_min_p, reduce_or_p, reduce_prod_p, reduce_sum_p)
from .primitives.gather import gather_p  # noqa: E402,F401
from .primitives.scatter import (scatter_add_p, scatter_max_p, scatter_min_p,  # noqa: E402,F401
                                 scatter_mul_p, scatter_p, scatter_sub_p)
from .primitives.cumulative import (argmax_p, argmin_p, cumlogsumexp_p, cummax_p,  # noqa: E402,F401
                                    cummin_p, cumprod_p, cumsum_p)
from .primitives.sort import sort_p  # noqa: E402,F401
from .primitives.top_k import approx_top_k_p, top_k_p  # noqa: E402,F401
from .primitives.cond import cond_p  # noqa: E402,F401
from .primitives.scan import scan_p  # noqa: E402,F401
from .primitives.while_loop import while_p  # noqa: E402,F401
from .primitives.solves import linear_solve_p  # noqa: E402,F401
from .primitives.special import bessel_i0e_p, bessel_i1e_p, zeta_p  # noqa: E402,F401
from .primitives.ffi_call import after_all_p, create_token_p  # noqa: E402,F401
from .lax_solves import custom_linear_solve, custom_root  # noqa: E402,F401
from .primitives.collectives import (all_gather_p, all_to_all_p, axis_index_p, pmax_p,  # noqa: E402,F401
                                     pmin_p, ppermute_p, psum_p)
from .primitives.convolution import conv_general_dilated_p  # noqa: E402,F401
from .primitives.windowed import (reduce_window_max_p, reduce_window_min_p,  # noqa: E402,F401
                                  reduce_window_sum_p, select_and_gather_add_p,
                                  select_and_scatter_add_p)
from .primitives.window_computations import reduce_window_p, select_and_scatter_p  # noqa: E402,F401
from .primitives.device_put import device_put_p  # noqa: E402,F401
from .primitives.bits import mulhi_p, reduce_precision_p, reduce_xor_p  # noqa: E402,F401
from .primitives.barriers import dce_sink_p, optimization_barrier_p  # noqa: E402,F401
from .primitives.rng_bits import rng_bit_generator_p, rng_uniform_p  # noqa: E402,F401
from .primitives.general_reduce import reduce_p  # noqa: E402,F401
from .primitives.fft import fft_p  # noqa: E402,F401
from .primitives.special import igamma_grad_a_p, igamma_p, igammac_p  # noqa: E402,F401
from .primitives.special import betainc_p as regularized_incomplete_beta_p  # noqa: E402,F401
from .primitives.spmd import sharding_constraint_p  # noqa: E402,F401
from .primitives.scaled_dot import scaled_dot  # noqa: E402,F401
from .primitives.restructure import (split, split_p, stack, stack_p, tile, tile_p,  # noqa: E402,F401
                                     unstack, unstack_p)
from .primitives.collectives_p2p import ragged_all_to_all_p  # noqa: E402,F401
from .lax_extras import *  # noqa: E402,F401,F403
from .lax_extras import _each_element  # noqa: E402,F401  (`x.at[idx].apply`)
# the structural functions, also on arrays of an extended dtype (their data's)
from .lax_extended import (broadcast, broadcast_in_dim, concatenate,  # noqa: E402,F401
                           dynamic_index_in_dim, dynamic_slice, dynamic_slice_in_dim,
                           dynamic_update_index_in_dim, dynamic_update_slice,
                           dynamic_update_slice_in_dim, expand_dims, index_in_dim, reshape,
                           rev, select, select_n, slice, slice_in_dim, squeeze, transpose)
from .lax_combiners import associative_scan, map, reduce  # noqa: E402,F401,A004
from .precision_config import (AccuracyMode, DotAlgorithm, DotAlgorithmPreset,  # noqa: E402,F401
                               Tolerance)
from .lax_ragged import RaggedDotDimensionNumbers, ragged_dot, ragged_dot_general  # noqa: E402,F401
from .lax_conv import (conv_general_dilated_local, conv_general_dilated_patches,  # noqa: E402,F401
                       conv_general_permutations, conv_shape_tuple)
from . import lax_linalg as linalg  # noqa: F401,E402  (`lax.linalg`)
from .primitives.random_gamma import random_gamma_grad  # noqa: F401,E402  (branch ext)

# a package (no submodule files of its own), as JAX's `jax.lax` is: `from jax.lax.linalg
# import qr` imports through it once `install_as_jax` serves `jax.lax.linalg`
__path__: list[str] = []
