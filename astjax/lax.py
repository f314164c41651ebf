"""`astjax.lax`: JAX's lax API, one thin function per primitive plus the usual
conveniences (`lax.dot`, `lax.broadcast`, ...). Python scalars take the dtype of
the other operand, as in JAX; otherwise operands must already agree.

Each wrapper is defined in its primitive's block (`astjax/primitives/`); the list of
them is `astjax/primitives/ops.py`."""
from .core import closure_convert, join_consts  # noqa: F401
from .primitives.ops import *  # noqa: F401,F403
from .primitives.ops import _index_scalar  # noqa: F401
