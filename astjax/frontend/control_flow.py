"""Control-flow conversion (filled in by the control-flow issue)."""
from __future__ import annotations

import gast


def canonicalize(node, filename):
    return node


class ControlFlowConverter(gast.NodeTransformer):
    def __init__(self, filename):
        self.filename = filename
