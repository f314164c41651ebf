"""The runtime tokens of ordered effects, as JAX's `RuntimeTokenSet` keeps them: the
token the last program with an ordered effect returned is the one the next program
with that effect takes, so XLA runs the second program's ordered callbacks after the
first's even while both are in flight (primitives/effects.py threads the tokens
through a program; `effects.RUNTIME_TOKENS` holds the last one per effect).

A program runs on one device (`astjax/jit_ordered.py`) or on several (a partitioned
`jit`, `codegen/spmd.py`; a `pmap`, `astjax/pmap_api.py`). PJRT holds a token as an
empty `bool[0]` buffer per device: a program on several devices takes one on each,
replicated (JAX shards its token over the program's devices the same way). A token
left on other devices than the next program's is waited for (the earlier program has
then run its callbacks) and a fresh one is made for the new devices.
"""
from __future__ import annotations

import numpy as np

from astjax import core, sharding_impls as shd
from astjax.primitives import effects

from . import runtime, sharded

__all__ = ["EMPTY", "token_inputs", "keep_tokens", "token_handlers", "replicated_over",
           "with_tokens"]

EMPTY = core.ShapedArray((0,), np.bool_)   # the buffer PJRT holds for a token


def _fresh(devs):
    bufs = [runtime.put_host(np.zeros((0,), np.bool_), EMPTY, d) for d in devs]
    if len(devs) == 1:
        return bufs[0]
    return runtime.xc.ArrayImpl(EMPTY, sharded.xla_sharding(devs), bufs, committed=True,
                                _skip_checks=True)


def _token_input(effect, devs):
    token = effects.RUNTIME_TOKENS.get(effect)
    if token is None:
        return _fresh(devs)
    if type(token) is sharded.GlobalArray:
        if token._devices == devs:
            return token._arr
    elif len(devs) == 1 and token.device == devs[0]:
        return token._buf
    token.block_until_ready()   # (its program has run its callbacks: order kept)
    return _fresh(devs)


def token_inputs(names, devs) -> list:
    """The buffers a program on devices `devs` (a tuple, in the program's device order)
    takes for the runtime tokens of ordered effects `names`: a single-device buffer
    for one device, else a multi-device jaxlib array with one empty buffer each."""
    return [_token_input(e, devs) for e in names]


def token_handlers(n, devs) -> list:
    """`n` result handlers for the effect tokens a program on several devices returns
    (replicated `bool[0]` arrays)."""
    sh = sharded.xla_sharding(devs)
    return [runtime.xc.array_result_handler(EMPTY, sh, committed=True, _skip_checks=True)] * n


def keep_tokens(names, outs, devs):
    """Keep the tokens `outs` (runtime Arrays of a one-device program, or jaxlib arrays
    from `token_handlers`) a program on `devs` returned for effects `names`: the next
    program with each effect takes them."""
    for name, out in zip(names, outs):
        if not isinstance(out, runtime.Array):
            out = sharded.GlobalArray(out, EMPTY, replicated_over(devs), devs)
        effects.RUNTIME_TOKENS[name] = out


def replicated_over(devs):
    """A token's layout in a program on `devs`: replicated (over a 1-d mesh of them)."""
    return shd.NamedSharding(shd.Mesh(np.array(devs, dtype=object), ("_token",)),
                             shd.PartitionSpec())


def with_tokens(executable, names):
    """A one-device `executable`'s `call_buffers`, taking and keeping the runtime
    tokens of ordered effects `names` (its module's first parameters and results)."""
    call, n, devs = executable.call_buffers, len(names), (executable.device,)

    def call_buffers(bufs):
        outs = call(token_inputs(names, devs) + bufs)
        keep_tokens(names, outs[:n], devs)
        return outs[n:]
    call_buffers.executable = executable
    return call_buffers
