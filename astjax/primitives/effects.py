"""Ordered effects and their tokens, as JAX 0.10.2 lowers them.

An ordered effect (an `io_callback(..., ordered=True)`: "io"; a `jax.debug.print` /
`debug.callback` with `ordered=True`: "debug") must happen in program order, also
across calls. JAX threads one `!stablehlo.token` per effect through the program:

- `@main` takes the tokens first (`{jax.token = true}`) and returns them first;
- each ordered callback's custom call takes its effect's current token and returns the
  next one;
- `cond` returns the tokens of the effects inside its branches first, `while` and
  `scan` carry those of their body first (a `while` whose condition has one carries
  the condition's value too, computed before the loop and after each trip:
  `while_loop._while_cond_effects`), an inner `jit` (a private function) takes and
  returns those of its body; inlined bodies (`custom_jvp`, `custom_vjp`,
  `checkpoint`, an unrolled `scan`) thread them in line;
- a `shard_map` (a `pmap` staged in a program) passes those of its body into its
  manual computation and out of it first, replicated over the mesh;
- at run time the token a call returns is passed to the next call (JAX's
  `RuntimeTokenSet`, here `RUNTIME_TOKENS`), so consecutive calls' ordered callbacks
  stay ordered (`codegen/runtime_tokens.py`: one device, `astjax/jit_ordered.py`, or
  several, a partitioned `jit` in `codegen/spmd.py` and a `pmap`).

`ORDERED` maps each primitive that can have an ordered effect to a function of its
params naming it (set in the primitive's own block); `ordered_effects(jaxpr)` reads a
program. While a module is lowered, `ModuleBuilder.tokens` holds each threaded
effect's current token (empty: nothing is threaded, and callbacks lower without
tokens); the helpers below are what the control-flow rules use.
"""
from __future__ import annotations

import weakref

from .. import core
from ..errors import JAXValueError

__all__ = ["ORDER", "ORDERED", "RUNTIME_TOKENS", "ordered_effects", "threaded", "current",
           "advance", "around", "results", "token_avals", "wait", "check_devices"]

# the order of the tokens in `@main`'s signature (JAX's set of effects iterates its
# `OrderedIOEffect` before its `OrderedDebugEffect` in 0.10.2: the recorded texts)
ORDER = ("io", "debug")

# primitive -> params -> the name of its ordered effect, or None (unordered)
ORDERED: dict = {}

# effect -> the token (an Array with no data) the last program with that effect
# returned; the next such program takes it (jit_ordered.py)
RUNTIME_TOKENS: dict = {}

_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()

# the effects JAX cannot order over several devices (it shards an ordered io_callback's)
_ONE_DEVICE = {"debug": "OrderedDebugEffect"}


def ordered_effects(jaxpr) -> tuple:
    """The ordered effects of `jaxpr` (a Jaxpr or ClosedJaxpr) and of the jaxprs nested
    in its equations' params, in `ORDER` (memoized per jaxpr)."""
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
    found = _cache.get(jaxpr)
    if found is None:
        names = set()
        for eqn in jaxpr.eqns:
            rule = ORDERED.get(eqn.primitive)
            if rule is not None and rule(eqn.params):
                names.add(rule(eqn.params))
            if eqn.params:
                for sub in core.sub_jaxprs(eqn.params):
                    names.update(ordered_effects(sub))
        found = _cache[jaxpr] = tuple(e for e in ORDER if e in names)
    return found


def threaded(ctx, *jaxprs) -> tuple:
    """The effects whose tokens an operation with bodies `jaxprs` threads: those of the
    bodies that the module being lowered threads (none when it threads none)."""
    tokens = ctx.mb.tokens
    if not tokens:
        return ()
    names = set()
    for j in jaxprs:
        names.update(ordered_effects(j))
    return tuple(e for e in tokens if e in names)


def current(ctx, effects) -> list:
    """The current tokens of `effects` (SSA values)."""
    tokens = ctx.mb.tokens
    return [tokens[e] for e in effects]


def advance(ctx, effects, values):
    """Make `values` the current tokens of `effects`."""
    ctx.mb.tokens.update(zip(effects, values))


def around(ctx, effects, args, jaxpr) -> list:
    """The body of a region whose arguments and results start with the tokens of
    `effects`: open `jaxpr` lowered on the other arguments with those tokens current,
    its results after the tokens it leaves."""
    advance(ctx, effects, args[:len(effects)])
    outs = ctx.lower_jaxpr(jaxpr, [], list(args[len(effects):]))
    return current(ctx, effects) + list(outs)


def results(ctx, effects, outs) -> list:
    """The results of an operation returning the tokens of `effects` first: make those
    current; the others."""
    advance(ctx, effects, outs[:len(effects)])
    return list(outs[len(effects):])


def token_avals(effects) -> list:
    """One token type per effect (an operation's results, a region's arguments)."""
    return [core.abstract_token] * len(effects)


def wait(effect):
    """Block until the last program with ordered effect `effect` has finished (before
    a callback of that effect runs outside a program, so it comes after theirs)."""
    token = RUNTIME_TOKENS.get(effect)
    if token is not None:
        token.block_until_ready()


def check_devices(jaxpr, ndevices, loc=None):
    """JAX's ValueError for a program on `ndevices` > 1 devices (a partitioned `jit`, a
    `pmap`) with an ordered effect JAX orders on one device only (an ordered debug
    print or callback)."""
    bad = [_ONE_DEVICE[e] for e in ordered_effects(jaxpr) if e in _ONE_DEVICE]
    if ndevices > 1 and bad:
        raise JAXValueError(
            f"The following ordered effects are not supported for more than 1 device: "
            f"[{', '.join(bad)}]", loc=loc,
            hint="print with ordered=False (each device's lines come in no set order), or "
                 "run the function on one device")
