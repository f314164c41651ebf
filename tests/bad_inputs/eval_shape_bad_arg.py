# expect: ArgumentTypeError TypeError
# jax: TypeError (TypeError): Error interpreting argument to <function <lambda> at 0x7f59a8d6da80> as an abstract array. The problematic value is of type <class 'str'> and was passed to the 
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax, random, tree_util

astjax.eval_shape(lambda x: x * 2, "abc")  # error
