"""The generated program's tree: `Line` (a simple statement) and `Block` (a compound
statement), shared by `gen` and `gen_constructs`."""
from __future__ import annotations


class Line:
    """A simple statement; `ref` is its reference form when it differs."""

    def __init__(self, jax, ref=None):
        self.jax, self.ref = jax, ref

    def text(self, mode):
        return self.ref if (mode == "ref" and self.ref is not None) else self.jax


class Block:
    """A compound statement: parts = [[header, body], ...] (if/elif/else, for/else)."""

    def __init__(self, parts):
        self.parts = parts
