"""Every primitive, declared once with its rules (see `helpers` for signatures)."""
from . import elementwise, structural, reductions, control  # noqa: F401
from .control import cond_p, while_p, scan_p  # noqa: F401
from .elementwise import *  # noqa: F401,F403
from .structural import *  # noqa: F401,F403
from .reductions import *  # noqa: F401,F403
