"""A typical chex program: shape/rank/type/tree assertions outside and inside `jit`,
`chex.dataclass` as a pytree through `jit`/`tree_map`, `assert_max_traces`,
`chex.chexify` (checkify-backed value assertions, asynchronous and synchronous),
failing assertions and their messages. Prints its numbers and messages as JSON."""
import json
import sys

import numpy as np
import jax
import jax.numpy as jnp
import chex

res = {}
x = jnp.arange(6.0).reshape(2, 3)
chex.assert_shape(x, (2, 3))
chex.assert_rank(x, 2)
chex.assert_type(x, float)
chex.assert_equal_shape([x, x + 1])
chex.assert_tree_all_finite({"a": x})
chex.assert_trees_all_close({"a": x}, {"a": x + 1e-7}, atol=1e-6)
chex.assert_scalar_positive(3.0)


def failure(fn):
    try:
        fn()
    except AssertionError as e:
        return str(e).splitlines()[0][:120]
    return None


res["fail_shape"] = failure(lambda: chex.assert_shape(x, (3, 2)))
res["fail_rank"] = failure(lambda: chex.assert_rank(x, 3))
res["fail_type"] = failure(lambda: chex.assert_type(x, int))
res["fail_close"] = failure(lambda: chex.assert_trees_all_close(x, x + 1.0))
res["fail_finite"] = failure(lambda: chex.assert_tree_all_finite(jnp.array([1.0, jnp.nan])))
res["fail_equal_shape"] = failure(lambda: chex.assert_equal_shape([x, x[0]]))


@chex.dataclass
class State:
    params: chex.Array
    step: chex.Array
    scale: float = 0.1


@jax.jit
def update(state: State, g):
    chex.assert_shape(g, state.params.shape)
    chex.assert_rank(state.step, 0)
    return state.replace(params=state.params - state.scale * g, step=state.step + 1)


s = State(params=jnp.ones(3), step=jnp.array(0))
for _ in range(3):
    s = update(s, jnp.arange(3.0))
res["dataclass_params"] = np.asarray(s.params).tolist()
res["dataclass_step"] = int(s.step)
res["dataclass_leaves"] = len(jax.tree_util.tree_leaves(s))
doubled = jax.tree_util.tree_map(lambda v: v * 2, s)
res["dataclass_tree_map"] = np.asarray(doubled.params).tolist()
res["jit_fail_shape"] = failure(lambda: update(s, jnp.ones(4)))


@chex.assert_max_traces(n=1)
def traced_once(v):
    return v * 2


tj = jax.jit(traced_once)
res["max_traces"] = [float(tj(jnp.float32(1.0))), float(tj(jnp.float32(2.0)))]
res["max_traces_fail"] = failure(lambda: tj(jnp.ones(3)))


def chexified_body(v):
    chex.assert_tree_all_finite(v)
    return jnp.log(v)


checked = chex.chexify(chexified_body, async_check=False)
res["chexify_ok"] = np.asarray(checked(jnp.array([1.0, 2.0]))).tolist()
try:
    checked(jnp.array([1.0, jnp.inf]))
    res["chexify_raised"] = 0
except AssertionError as e:
    res["chexify_raised"] = int("Tree contains non-finite value" in str(e))

jitted_checked = chex.chexify(jax.jit(chexified_body))
res["chexify_jit_ok"] = np.asarray(jitted_checked(jnp.array([3.0]))).tolist()
try:
    jitted_checked(jnp.array([jnp.nan]))
    chex.block_until_chexify_assertions_complete()
    res["chexify_jit_raised"] = 0
except AssertionError as e:
    res["chexify_jit_raised"] = int("Tree contains non-finite value" in str(e))
chex.block_until_chexify_assertions_complete()

# an assertion that failed as it should (its message is chex's, not compared)
res["failed_as_expected"] = [int(res.pop(k) is not None)
                             for k in sorted(k for k in res if "fail" in k)]
json.dump(res, sys.stdout)
