"""Every primitive, declared once with its rules (see `helpers` for signatures)."""
from . import effects  # noqa: F401  (ordered effects and their tokens)
from . import comparisons, arithmetic  # noqa: F401  (the elementwise family, before elementwise)
from . import edtypes  # noqa: F401  (user extended dtypes: to_edtype / from_edtype, EArray)
from . import elementwise, structural, concat_pad, slicing, selection, reductions  # noqa: F401
from . import gather, scatter, cumulative, sort, top_k  # noqa: F401
from .elementwise import *  # noqa: F401,F403
from .structural import *  # noqa: F401,F403
from .concat_pad import *  # noqa: F401,F403
from .slicing import *  # noqa: F401,F403
from .selection import *  # noqa: F401,F403
from .reductions import *  # noqa: F401,F403
from .gather import *  # noqa: F401,F403
from .scatter import *  # noqa: F401,F403
from .cumulative import *  # noqa: F401,F403
from .sort import *  # noqa: F401,F403
from . import vma_errors  # noqa: F401,E402  (JAX's messages for carries / branches / manual-axis types that disagree)
from . import cond, scan, while_loop  # noqa: F401,E402  (structured control flow)
from . import solves  # noqa: F401,E402  (custom_linear_solve)
from . import lapack  # noqa: F401,E402  (emitting LAPACK custom calls)
from . import cusolver  # noqa: F401,E402  (emitting cuSOLVER custom calls: the CUDA lowerings)
from . import generic_linalg  # noqa: F401,E402  (JAX's lowerings of lu, ormqr, tridiagonal_solve on any platform)
from . import linalg  # noqa: F401,E402  (cholesky, triangular_solve)
from .linalg import *  # noqa: F401,F403
from . import collectives  # noqa: F401,E402  (psum, all_gather, axis_index, ...: named axes)
from . import collectives_typed  # noqa: F401,E402  (all_gather_invariant: all_gather(to='invarying'))
from . import collectives_scatter  # noqa: F401,E402  (reduce_scatter: lax.psum_scatter)
from . import custom_derivatives  # noqa: F401,E402  (stop_gradient, custom_jvp/vjp_call, checkpoint)
from . import remat_opt  # noqa: F401,E402  (remat_opt: custom_vjp optimize_remat; closed_call)
from . import jit_call  # noqa: F401,E402  (jit: an inner jitted function kept as one equation)
from . import linear_call  # noqa: F401,E402  (linear_call: a linear function with a user transpose)
from . import callbacks  # noqa: F401,E402  (pure_callback, io_callback, debug_callback)
from . import debug_print  # noqa: F401,E402  (debug_print: jax.debug.print / log with their formatting)
from . import ffi_call  # noqa: F401,E402  (ffi_call: a call of an XLA FFI target)
from . import convolution  # noqa: F401,E402  (conv_general_dilated)
from . import windowed  # noqa: F401,E402  (reduce_window and its derivatives)
from . import window_computations  # noqa: F401,E402  (reduce_window_p, select_and_scatter_p: user computations)
from . import vma  # noqa: F401,E402  (varying manual axes: check_vma, typeof inside shard_map)
from . import vma_reverse  # noqa: F401,E402  (JAX's typed cotangents inside a body)
from . import untyped_made  # noqa: F401,E402  (values made without an Explicit type; no primitive)
from . import spmd  # noqa: F401,E402  (sharding_constraint, reshard: one value's layout)
from . import shard_map  # noqa: F401,E402  (shard_map: a per-device body; partitioned programs)
from . import collectives_p2p  # noqa: F401,E402  (pbroadcast, psend, precv, ragged_all_to_all)
from . import fft  # noqa: F401,E402  (lax.fft on stablehlo.fft)
from . import matrix_rules  # noqa: F401,E402  (the factorization JVP rules' matrix helpers)
from . import factorizations  # noqa: F401,E402  (LAPACK custom calls: lu, qr, eigh, svd, eig)
from . import schur  # noqa: F401,E402  (schur: LAPACK gees)
from . import householder  # noqa: F401,E402  (geqrf, householder_product, hessenberg)
from . import special  # noqa: F401,E402  (igamma, igammac, betainc)
from . import prng_keys  # noqa: F401,E402  (random_wrap/random_unwrap: the typed-key boundary)
from . import prng_ops  # noqa: F401,E402  (random_seed: JAX's seeding equation)
from . import threefry_draws  # noqa: F401,E402  (the threefry2x32 hash and draws; no primitive)
from . import random_gamma  # noqa: F401,E402  (random_gamma: JAX's gamma sampler)

from . import bits  # noqa: F401,E402  (mulhi, reduce_xor, reduce_precision)
from . import random123  # noqa: F401,E402  (threefry4x32, philox2x32, philox4x32: the hashes)
from . import barriers  # noqa: F401,E402  (optimization_barrier)
from . import device_put  # noqa: F401,E402  (device_put inside a staged function)
from . import compute_on  # noqa: F401,E402  (compute_on: a call run on another compute)
from . import rng_bits  # noqa: F401,E402  (rng_bit_generator, rng_uniform: XLA's generators)
from . import general_reduce  # noqa: F401,E402  (reduce: XLA's reduction with a user computation)
from . import composite  # noqa: F401,E402  (composite: a named op and its decomposition)
from . import restructure  # noqa: F401,E402  (split, stack, unstack, tile: linear shape primitives)
from . import scaled_dot  # noqa: F401,E402  (scaled_dot: the block-scaled product, a composite)
from . import ref_indexing, state  # noqa: F401,E402  (mutable array references: new_ref, get, swap, ...)
from . import exported_call  # noqa: F401,E402  (call_exported: a call of an astjax.export module)
from . import ops  # noqa: F401,E402  (every wrapper in one namespace; after every family)
