"""Lowering the equations staged inside a `compute_on` block
(`jax.experimental.compute_on`, `astjax/compat/experimental/compute_on.py`).

An equation staged while `compute_on(t)` is active carries `t` in its source info
(`SourceInfo.compute_type`; the transforms keep it on what they derive from the
equation, as JAX keeps its equation context). JAX 0.10.2 lowers such an equation as
usual and marks, with `mhlo.frontend_attributes = {_xla_compute_type = "..."}`
(`device_host` -> `"host"`, `device` -> `"dense"`, `tpu_sparsecore` ->
`"sparseoffload"`), the operation that makes each of its results and every
`broadcast_in_dim` its rule emitted (an implicit scalar broadcast); constants and
other intermediate operations are left unmarked. XLA runs the marked operations on the
host's compute (on the CPU: where they run anyway).

`tag(lines, start, outs, compute_type)` does that to the module text a lowering rule
emitted (`lines[start:]`, MLIR's generic form, one operation per line).
"""
from __future__ import annotations

import re

from astjax.primitives.compute_on import XLA_COMPUTE_TYPES

__all__ = ["xla_compute_type", "tag"]

# one operation in MLIR's generic form: indent, result, its count, name, operands,
# attributes, signature (which has no braces)
_OP = re.compile(r'^(\s*)(%[\w.]+)(:\d+)? = "([\w.]+)"\(([^()]*)\)(?: \{(.*)\})? : (\([^{}]*)$')
# one with regions (one entry of several lines): its first line, and its last one
# (after the regions: attributes, signature)
_HEAD = re.compile(r'^\s*(%[\w.]+)(?::\d+)? = "([\w.]+)"\(')
_TAIL = re.compile(r'^(\s*\}\))(?: \{(.*)\})? : (\([^{}]*)$')


def xla_compute_type(compute_type: str) -> str:
    """XLA's name for the JAX compute type `compute_type`."""
    return XLA_COMPUTE_TYPES[compute_type]


def tag(lines, start, outs, compute_type):
    """Mark, in `lines[start:]`, the operations making the SSA values `outs` and the
    `broadcast_in_dim`s with `compute_type`'s `_xla_compute_type` attribute (once)."""
    made = {o.split("#")[0] for o in outs if isinstance(o, str)}
    attr = ('mhlo.frontend_attributes = {_xla_compute_type = "'
            f'{xla_compute_type(compute_type)}"}}')
    for i in range(start, len(lines)):
        text = lines[i]
        if "\n" in text:   # (an operation with regions: its own results only)
            head, _, rest = text.partition("\n")
            body, _, last = rest.rpartition("\n")
            m, t = _HEAD.match(head), _TAIL.match(last)
            if m is not None and t is not None and m.group(1) in made and (
                    "_xla_compute_type" not in last):
                close, attrs, sig = t.groups()
                lines[i] = f"{head}\n{body}\n{close} {{{_merged(attrs, attr)}}} : {sig}"
            continue
        m = _OP.match(text)
        if m is None or "_xla_compute_type" in text:
            continue
        indent, res, count, name, operands, attrs, sig = m.groups()
        if name == "stablehlo.constant" or (
                res not in made and name != "stablehlo.broadcast_in_dim"):
            continue
        lines[i] = (f'{indent}{res}{count or ""} = "{name}"({operands}) '
                    f'{{{_merged(attrs, attr)}}} : {sig}')


def _merged(attrs, attr):
    """An operation's attributes `attrs` (or None) with `attr` added (into its
    frontend attributes when it has some: one dictionary)."""
    if attrs and "mhlo.frontend_attributes = {" in attrs:
        return attrs.replace("mhlo.frontend_attributes = {", attr[:-1] + ", ", 1)
    return f"{attrs}, {attr}" if attrs else attr
