"""Every primitive, declared once with its rules (see `helpers` for signatures)."""
from . import elementwise, structural, reductions  # noqa: F401
from .elementwise import *  # noqa: F401,F403
from .structural import *  # noqa: F401,F403
from .reductions import *  # noqa: F401,F403
