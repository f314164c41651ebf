"""`jax.experimental.sparse`: the `BCOO` (batched coordinate) sparse array and its
operations, written with astjax's jnp / lax operations so that `jit`, `vmap` and `grad`
through the stored data work by construction: the BCOO core (`bcoo`), its structural
operations (`_bcoo_slicing`: slices, gathers, reshapes, layout changes), products with a
sparse result (`_bcoo_products`), `BCSR` (batched CSR: conversions and `@` dense,
`bcsr`), `sparsify` (`transform`) and the BCOO operators derived from it (`_methods`); the
un-batched 2-D formats `COO` / `CSR` / `CSC` with their matrix-vector and
matrix-matrix products (`coo`, `csr`); `random_bcoo` (`random`). JAX's
`bcoo_conv_general_dilated`, `linalg`, the sparse `grad` / `jacfwd` family and the
BCSR operations beyond conversions and `@` are not provided."""
from .bcoo import (BCOO, JAXSparse, bcoo_extract, bcoo_fromdense,  # noqa: F401
                   bcoo_multiply_dense, bcoo_reduce_sum,
                   bcoo_sort_indices, bcoo_sum_duplicates, bcoo_todense, bcoo_transpose,
                   bcoo_concatenate, bcoo_dot_general)
from ._bcoo_slicing import (bcoo_broadcast_in_dim, bcoo_dynamic_slice, bcoo_gather,  # noqa: F401
                           bcoo_reshape, bcoo_rev, bcoo_slice, bcoo_squeeze, bcoo_update_layout)
from ._bcoo_products import (bcoo_dot_general_sampled,  # noqa: F401
                             bcoo_multiply_sparse)
from .util import (CuSparseEfficiencyWarning, SparseEfficiencyError,  # noqa: F401
                   SparseEfficiencyWarning)
from .bcsr import BCSR, bcsr_dot_general, bcsr_fromdense, bcsr_todense  # noqa: F401
from .coo import COO, coo_fromdense, coo_matmat, coo_matvec, coo_todense  # noqa: F401
from .csr import CSC, CSR, csr_fromdense, csr_matmat, csr_matvec, csr_todense  # noqa: F401
from .api import empty, eye, todense  # noqa: F401
from .random import random_bcoo  # noqa: F401
from .transform import sparsify  # noqa: F401
from . import _methods  # noqa: F401  (installs BCOO's operators)
from . import api, bcoo, bcsr, coo, csr, random, transform, util  # noqa: F401
