"""`jit` of a function that takes or returns XLA tokens (`lax.create_token()`,
`lax.after_all`, an `ffi_call`'s token result), as JAX compiles it: the tokens are
`!stablehlo.token` arguments and results of `@main`, and a call passes and returns
host `Token` objects. (Under `set_mesh` such a `jit` is a partitioned program on the
mesh, `codegen/spmd.py`, as JAX's.) A function with ordered effects takes and returns
their tokens first, before its own (`{jax.token = true}`), as `jit_ordered` does.

A token has no data. PJRT takes an empty `bool[0]` buffer for a token parameter and
gives one back for a token result (what JAX passes and receives), so `TokenEntry`
compiles the module with those buffer types at the token positions, passes an empty
buffer for each `Token` argument, and turns each token result into a `Token`. Like
`jit_refs.RefEntry`, it is never put on the fast dispatch paths: every call goes
through `run`.
"""
from __future__ import annotations

import numpy as np

from . import core, tree_util
from .codegen import runtime, stablehlo
from .codegen.runtime_tokens import EMPTY, with_tokens
from .primitives import effects
from .primitives.ffi_call import Token

__all__ = ["TokenEntry", "at_boundary"]

def at_boundary(closed) -> bool:
    """Whether an argument or a result of `closed` is a token."""
    jaxpr = closed.jaxpr
    return any(type(v.aval) is core.TokenAval for v in (*jaxpr.invars, *jaxpr.outvars))


def _buffer_aval(aval):
    return EMPTY if type(aval) is core.TokenAval else aval


class TokenEntry:
    """One compiled signature of a jitted function with token arguments or results:
    `text` (`@main` typed with `!stablehlo.token` there), `compile()`, `run(leaves)`."""

    def __init__(self, closed, out_tree, name, donated=(), compiler_options=()):
        self.closed, self.out_tree, self.in_tree = closed, out_tree, None
        # (closed-over values: constants of the module, as JAX's)
        self.program, embedded = stablehlo.embedded_constants(closed, runtime.ONE_DEVICE)
        jaxpr = self.program.jaxpr
        self.in_avals = [v.aval for v in jaxpr.invars]
        self.is_token = [type(v.aval) is core.TokenAval for v in jaxpr.outvars]
        self.compiler_options = tuple(compiler_options)
        nconst = len(jaxpr.constvars)
        # (with ordered effects, their tokens come first, as in `jit_ordered`)
        self.effects = effects.ordered_effects(jaxpr)
        self.text = stablehlo.lower_module(
            jaxpr, name=f"jit_{name}", donated={i + nconst for i in donated},
            result_names=stablehlo.result_names(out_tree), tokens=True,
            ordered=self.effects, embedded=embedded)
        self.consts = list(self.program.consts)
        self.executable = None

    def compile(self):
        """Compile the module (once): PJRT's empty buffers at the token positions."""
        if self.executable is None:
            j, toks = self.program.jaxpr, [EMPTY] * len(self.effects)
            ex = self.executable = runtime.Executable(
                self.text, toks + [_buffer_aval(v.aval) for v in (*j.constvars, *j.invars)],
                toks + [_buffer_aval(v.aval) for v in j.outvars],
                compiler_options=self.compiler_options)
            if self.effects:
                ex.call_buffers = with_tokens(ex, self.effects)
        return self

    def run(self, leaves):
        """Run on flat argument leaves (`Token`s at the token positions)."""
        self.compile()
        args = [np.zeros((0,), np.bool_) if type(a) is core.TokenAval else x
                for x, a in zip(leaves, self.in_avals)]
        outs = self.executable(*self.consts, *args)
        return tree_util.tree_unflatten(
            self.out_tree, [Token() if t else o for o, t in zip(outs, self.is_token)])
