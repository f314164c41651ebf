"""Deliberate type errors against astjax's annotations: `tests/test_typing.py` checks
that `mypy --strict` reports exactly the lines whose comment starts with "error", so
the typed program's clean pass cannot be vacuous. Never run."""
from __future__ import annotations

import astjax
import astjax.numpy as jnp
from astjax import random, tree_util
from astjax.typing import Array

key = random.key(0)
x: Array = random.normal(key, (3,))
n: int = x  # error: an Array is not an int
random.normal(key, shape="3")  # error: a shape is a sequence of ints
random.uniform(key, (2,), minval="low")  # error: bounds are arrays or numbers
astjax.grad(jnp.sin, argnums="0")  # error: argnums are ints
astjax.jit(jnp.sin, static_argnums=1.5)  # error: static_argnums are ints
leaves: dict[str, Array] = tree_util.tree_leaves({"a": x})  # error: leaves are a list
s: str = astjax.nn.relu(x)  # error: relu returns an Array
m: Array = x.shape  # error: a shape is a tuple of ints
astjax.vmap(jnp.sin, axis_size="4")  # error: axis_size is an int
y: astjax.Array = x.astype(jnp.float32).shape[0]  # error: an int is not an Array
