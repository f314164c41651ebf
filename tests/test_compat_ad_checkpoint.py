"""`jax.ad_checkpoint` as served by astjax (astjax/compat/ad_checkpoint.py)."""
import astjax as jax
import astjax.numpy as jnp
from astjax.compat import ad_checkpoint as adc


def _g(W, x):
    return jnp.sin(jnp.dot(W, x))


def _f(W1, W2, x):
    return _g(W2, _g(W1, x))


def test_saved_residuals_arguments_then_intermediates():
    W1, W2, x = jnp.ones((5, 4)), jnp.ones((3, 5)), jnp.ones(4)
    got = [(a.str_short(), w.split(" from ")[0] if "output" in w else w)
           for a, w in adc.saved_residuals(_f, W1, W2, x)]
    assert got == [("f32[5,4]", "from the argument W1"), ("f32[3,5]", "from the argument W2"),
                   ("f32[4]", "from the argument x"), ("f32[5]", "output of sin"),
                   ("f32[5]", "output of cos"), ("f32[3]", "output of cos")]


def test_saved_residuals_location_and_checkpoint():
    W1, W2, x = jnp.ones((5, 4)), jnp.ones((3, 5)), jnp.ones(4)
    f2 = lambda W1, W2, x: jax.checkpoint(_g)(W2, jax.checkpoint(_g)(W1, x))
    got = adc.saved_residuals(f2, W1, W2, x)
    inner = [w for _, w in got if w.startswith("output")]
    assert len(inner) == 1 and inner[0].startswith("output of sin from ")
    assert inner[0].endswith("(_g)") and "test_compat_ad_checkpoint.py:" in inner[0]


def test_print_and_pytree_argument_names(capsys):
    adc.print_saved_residuals(lambda p, x: jnp.sum(jnp.sin(p[0] * x)), [jnp.ones(2)],
                              jnp.ones(2))
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "f32[2] from the argument p[0]"
    assert out[1] == "f32[2] from the argument x"


def test_checkpoint_name_and_policies():
    assert float(adc.checkpoint_name(jnp.float32(2.0), "a")) == 2.0
    pol = adc.checkpoint_policies
    f = jax.checkpoint(lambda x: jnp.sin(x) * 2, policy=pol.dots_with_no_batch_dims_saveable)
    assert abs(float(jax.grad(f)(0.5)) - 2 * float(jnp.cos(0.5))) < 1e-6
    assert pol.save_only_these_names("a") is not None
    assert pol.everything_saveable() and not pol.nothing_saveable()
