# expect: ok
# jax: ok
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

k = random.key(0)
a, b = random.key_data(random.fold_in(k, "5")), random.key_data(random.fold_in(k, 5))
assert a.tolist() == b.tolist()
