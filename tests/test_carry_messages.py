"""A loop body returning a carry of other types or another pytree structure, and `cond`
/ `switch` branches returning different outputs, raise JAX's TypeError with JAX's
message word for word (recorded from JAX 0.10.2: tests/oracle/record_carry_messages.py),
located at the user's call, with a hint: `fori_loop`'s carry is `loop_carry[1]` (a
`scan`) or `loop_carry[2]` (a `while`, staged bounds) as JAX names it, a `scan` /
`while_loop` carry by the body's first parameter and the path inside it."""
import json
import os
import sys

import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.errors import AstjaxError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "oracle"))
import record_carry_messages as rec  # noqa: E402

with open(rec.OUT) as _f:
    EXPECTED = json.load(_f)
CASES = rec.cases(astjax, jnp, lax)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_message_is_jaxs(name):
    want = EXPECTED[name]
    if want == "ok":
        CASES[name]()
        return
    with pytest.raises(TypeError) as info:
        CASES[name]()
    err = info.value
    assert isinstance(err, AstjaxError) and err.hint and err.loc is not None
    # (the one word that differs: the class of astjax's abstract values)
    assert err.message == want[1].replace("jax._src.core.ShapedArray", "astjax.ir.ShapedArray"
                                          ).replace("{RECORDER}", os.path.abspath(rec.__file__))
