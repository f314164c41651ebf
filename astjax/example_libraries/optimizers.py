"""`optimizers`: first-order optimizers as `Optimizer(init_fun, update_fun, get_params)`.

`opt_state = init_fun(params)`, `opt_state = update_fun(step, grads, opt_state)`,
`params = get_params(opt_state)`, for any pytree of parameters. Each optimizer is
written for one array (`@optimizer` lifts it to pytrees); its state is a pytree
(`OptimizerState`), so it can cross `jit` and be stored (`unpack_optimizer_state` /
`pack_optimizer_state`). Step sizes are numbers or schedules `step -> size`.
"""
from __future__ import annotations

import functools
from collections import namedtuple
from typing import Any, Callable, NamedTuple

from .. import numpy as jnp
from .. import tree_util

__all__ = ["OptimizerState", "Optimizer", "optimizer", "sgd", "momentum", "nesterov",
           "adagrad", "rmsprop", "rmsprop_momentum", "adam", "adamax", "sm3", "constant",
           "exponential_decay", "inverse_time_decay", "polynomial_decay",
           "piecewise_constant", "make_schedule", "l2_norm", "clip_grads", "JoinPoint",
           "unpack_optimizer_state", "pack_optimizer_state"]

Schedule = Callable[[int], float]

OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
tree_util.register_pytree_node(
    OptimizerState,
    lambda s: ((s.packed_state,), (s.tree_def, s.subtree_defs)),
    lambda aux, children: OptimizerState(children[0], aux[0], aux[1]))


class Optimizer(NamedTuple):
    """(init_fun, update_fun, params_fn) of a pytree optimizer."""
    init_fn: Callable
    update_fn: Callable
    params_fn: Callable


def optimizer(opt_maker):
    """Lift an optimizer written for one array, `opt_maker(*args) -> (init, update,
    get_params)`, to one over pytrees of parameters."""
    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(params):
            leaves, tree = tree_util.tree_flatten(params)
            flat = [tree_util.tree_flatten(init(x)) for x in leaves]
            return OptimizerState([s for s, _ in flat], tree, [d for _, d in flat])

        @functools.wraps(update)
        def tree_update(i, grads, opt_state):
            states, tree, subtrees = opt_state
            grad_leaves, grad_tree = tree_util.tree_flatten(grads)
            if grad_tree != tree:
                raise TypeError("optimizer update function was passed a gradient tree that "
                                "did not match the parameter tree structure with which it was "
                                f"initialized: parameter tree {tree} and grad tree {grad_tree}.")
            new = []
            for g, s, sub in zip(grad_leaves, states, subtrees):
                leaves, sub2 = tree_util.tree_flatten(update(i, g, tree_util.tree_unflatten(sub, s)))
                if sub2 != sub:
                    raise TypeError("optimizer update function produced an output structure "
                                    f"that did not match its input structure: input {sub} and "
                                    f"output {sub2}.")
                new.append(leaves)
            return OptimizerState(new, tree, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state):
            states, tree, subtrees = opt_state
            return tree_util.tree_unflatten(
                tree, [get_params(tree_util.tree_unflatten(sub, s))
                       for s, sub in zip(states, subtrees)])
        return Optimizer(tree_init, tree_update, tree_get_params)
    return tree_opt_maker


def _first(state):
    return state[0]


@optimizer
def sgd(step_size):
    """x <- x - step_size(i) g."""
    lr = make_schedule(step_size)
    return (lambda x: x), (lambda i, g, x: x - lr(i) * g), (lambda x: x)


@optimizer
def momentum(step_size, mass):
    """v <- mass v + g;  x <- x - step_size(i) v."""
    lr = make_schedule(step_size)

    def update(i, g, state):
        x, v = state
        v = mass * v + g
        return x - lr(i) * v, v
    return (lambda x: (x, jnp.zeros_like(x))), update, _first


@optimizer
def nesterov(step_size, mass):
    """Nesterov momentum: v <- mass v + g;  x <- x - step_size(i) (mass v + g)."""
    lr = make_schedule(step_size)

    def update(i, g, state):
        x, v = state
        v = mass * v + g
        return x - lr(i) * (mass * v + g), v
    return (lambda x: (x, jnp.zeros_like(x))), update, _first


@optimizer
def adagrad(step_size, momentum=0.9):
    """Adagrad with momentum on the normalized gradient."""
    lr = make_schedule(step_size)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq = g_sq + jnp.square(g)
        inv = jnp.where(g_sq > 0, 1.0 / jnp.sqrt(g_sq), 0.0)
        m = (1.0 - momentum) * (g * inv) + momentum * m
        return x - lr(i) * m, g_sq, m
    return (lambda x: (x, jnp.zeros_like(x), jnp.zeros_like(x))), update, _first


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    """RMSProp: a running mean of g^2 scales the step."""
    lr = make_schedule(step_size)

    def update(i, g, state):
        x, avg = state
        avg = avg * gamma + jnp.square(g) * (1.0 - gamma)
        return x - lr(i) * g / jnp.sqrt(avg + eps), avg
    return (lambda x: (x, jnp.zeros_like(x))), update, _first


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    """RMSProp with momentum."""
    lr = make_schedule(step_size)

    def update(i, g, state):
        x, avg, mom = state
        avg = avg * gamma + jnp.square(g) * (1.0 - gamma)
        mom = momentum * mom + lr(i) * g / jnp.sqrt(avg + eps)
        return x - mom, avg, mom
    return (lambda x: (x, jnp.zeros_like(x), jnp.zeros_like(x))), update, _first


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adam: bias-corrected first and second moment estimates."""
    lr = make_schedule(step_size)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * jnp.square(g) + b2 * v
        m_hat = m / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))
        v_hat = v / (1 - jnp.asarray(b2, m.dtype) ** (i + 1))
        return x - lr(i) * m_hat / (jnp.sqrt(v_hat) + eps), m, v
    return (lambda x: (x, jnp.zeros_like(x), jnp.zeros_like(x))), update, _first


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adamax: Adam with the infinity norm for the second moment."""
    lr = make_schedule(step_size)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = jnp.maximum(b2 * u, jnp.abs(g))
        corrected = lr(i) / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))
        return x - corrected * m / (u + eps), m, u
    return (lambda x: (x, jnp.zeros_like(x), jnp.zeros_like(x))), update, _first


@optimizer
def sm3(step_size, momentum=0.9):
    """SM3: per-axis accumulators (memory-efficient Adagrad) with momentum."""
    lr = make_schedule(step_size)

    def along(ndim, v, axis):
        index = [None] * ndim
        index[axis] = slice(None)
        return v[tuple(index)]

    def init(x0):
        shape = x0.shape
        x0 = jnp.atleast_1d(x0)
        return x0, jnp.zeros_like(x0), [jnp.zeros(n, dtype=x0.dtype) for n in x0.shape], shape

    def update(i, g, state):
        x, m, vs, shape = state
        accum = functools.reduce(jnp.minimum, [along(g.ndim, v, a) for a, v in enumerate(vs)])
        accum = accum + jnp.square(g)
        inv = jnp.where(accum > 0, 1.0 / jnp.sqrt(accum), 0)
        m = (1.0 - momentum) * (g * inv) + momentum * m
        x = x - lr(i) * m
        vs = [accum.max(tuple(a for a in range(x.ndim) if a != j)) for j in range(x.ndim)]
        return x, m, vs, shape
    return init, update, lambda state: state[0].reshape(state[3])


# ---- schedules ------------------------------------------------------------------------


def constant(step_size) -> Schedule:
    """The same step size at every step."""
    return lambda i: step_size


def exponential_decay(step_size, decay_steps, decay_rate) -> Schedule:
    """step_size * decay_rate^(i / decay_steps)."""
    return lambda i: step_size * decay_rate ** (i / decay_steps)


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False) -> Schedule:
    """step_size / (1 + decay_rate * i / decay_steps) (floored with `staircase`)."""
    if staircase:
        return lambda i: step_size / (1 + decay_rate * jnp.floor(i / decay_steps))
    return lambda i: step_size / (1 + decay_rate * i / decay_steps)


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0) -> Schedule:
    """From step_size to final_step_size over decay_steps as (1 - i/decay_steps)^power."""
    def schedule(i):
        i = jnp.minimum(i, decay_steps)
        return (1 - i / decay_steps) ** power * (step_size - final_step_size) + final_step_size
    return schedule


def piecewise_constant(boundaries: Any, values: Any) -> Schedule:
    """values[k] for steps after boundaries[k-1] (inclusive of that boundary's end)."""
    boundaries, values = jnp.array(boundaries), jnp.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError("boundaries and values must be sequences")
    if boundaries.shape[0] != values.shape[0] - 1:
        raise ValueError("boundaries length must be one shorter than values length")
    return lambda i: values[jnp.sum(i > boundaries)]


def make_schedule(scalar_or_schedule) -> Schedule:
    """A schedule from a number (constant) or a schedule (itself)."""
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if jnp.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(type(scalar_or_schedule))


# ---- utilities ------------------------------------------------------------------------


def l2_norm(tree):
    """The l2 norm of all the leaves of `tree` together."""
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in tree_util.tree_leaves(tree)))


def clip_grads(grad_tree, max_norm):
    """Scale `grad_tree` down so its l2 norm is at most `max_norm`."""
    norm = l2_norm(grad_tree)
    return tree_util.tree_map(lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm)),
                              grad_tree)


class JoinPoint:
    """Marks where one parameter's state subtree begins in an unpacked state."""

    def __init__(self, subtree):
        self.subtree = subtree

    def __iter__(self):
        yield self.subtree


def unpack_optimizer_state(opt_state):
    """An `OptimizerState` as a pytree of `JoinPoint`s (e.g. to pickle it)."""
    states, tree, subtrees = opt_state
    return tree_util.tree_unflatten(tree, [JoinPoint(tree_util.tree_unflatten(d, s))
                                           for s, d in zip(states, subtrees)])


def pack_optimizer_state(marked_pytree):
    """The inverse of `unpack_optimizer_state`."""
    joins, tree = tree_util.tree_flatten(marked_pytree)
    if not all(isinstance(j, JoinPoint) for j in joins):
        raise TypeError("pack_optimizer_state needs the pytree unpack_optimizer_state made")
    flat = [tree_util.tree_flatten(j.subtree) for j in joins]
    return OptimizerState([s for s, _ in flat], tree, [d for _, d in flat])
