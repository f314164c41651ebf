"""`jit` of a function with ordered effects (`io_callback(..., ordered=True)`,
`jax.debug.print(..., ordered=True)`), run as JAX 0.10.2 runs it.

The module threads one `!stablehlo.token` per ordered effect (primitives/effects.py):
`@main` takes the effect's token first and returns the next one. At run time, as
JAX's dispatch with its `RuntimeTokenSet`, the token a call returns is kept
(`effects.RUNTIME_TOKENS`) and passed to the next program with that effect, so XLA
runs that program's ordered callbacks after the previous one's, even while earlier
calls are still running asynchronously (`codegen/runtime_tokens.py`, shared with the
partitioned programs of `codegen/spmd.py` and `pmap`). PJRT holds a token as an empty `bool[0]`
buffer (what JAX passes), so the executable is compiled with those buffer types at
the token positions.

`OrderedEntry` is the plain one-device entry (`dispatch_keys.Entry`) with the tokens
added; it is never put on the fast dispatch paths (they take plain entries only), so
a program without ordered effects pays nothing for them.
"""
from __future__ import annotations

from .codegen import runtime
from .codegen.runtime_tokens import EMPTY, with_tokens
from .dispatch_keys import Entry
from .primitives import effects

__all__ = ["OrderedEntry", "has_ordered_effects"]


def has_ordered_effects(closed) -> bool:
    """Whether the staged program `closed` has an ordered effect."""
    return bool(effects.ordered_effects(closed.jaxpr))


class OrderedEntry(Entry):
    """One compiled signature of a jitted function with ordered effects: the module
    with `@main`'s token arguments and results, run with the runtime tokens."""
    __slots__ = ("effects",)

    def __init__(self, closed, out_tree, name, donated=(), compiler_options=(),
                 platform="cpu"):
        super().__init__(closed, out_tree, name, donated, compiler_options, platform)
        self.effects = effects.ordered_effects(self.program.jaxpr)
        self.lower_args["ordered"] = self.effects

    def compile(self):
        """Compile the module (once): empty buffers at the token positions."""
        if self.executable is None:
            jaxpr, toks = self.program.jaxpr, [EMPTY] * len(self.effects)
            ex = self.executable = runtime.Executable(
                self.text, toks + [v.aval for v in jaxpr.constvars + jaxpr.invars],
                toks + [v.aval for v in jaxpr.outvars], compiler_options=self.compiler_options)
            self.call_buffers = with_tokens(ex, self.effects)
            self.exe, self.handlers, self.out_avals = ex.exe, ex.handlers, ex.out_avals
            self.many = ex.many
        return self

    def placed_on(self, dev):
        """`Entry.placed_on`, its calls taking the runtime tokens too."""
        view = super().placed_on(dev)
        if getattr(view.call_buffers, "executable", None) is not view.executable:
            view.call_buffers = with_tokens(view.executable, self.effects)
        return view
