"""custom_jvp / custom_vjp: astjax runs the primal function once more than JAX, and
jax.vjp runs the backward rule eagerly (when the VJP is built, not when it is called).

JAX:    jvp:  called f_jvp! / called f!
        grad: called f_fwd! / called f! / called f_bwd!
        vjp:  called f_fwd! / called f! / -- calling f_vjp -- / called f_bwd!
astjax: jvp:  called f! / called f_jvp! / called f!
        grad: called f! / called f_fwd! / called f! / called f_bwd!
        vjp:  called f! / called f_fwd! / called f! / called f_bwd! / -- calling f_vjp --
(a pdb.set_trace() in a bwd rule -- the notebook's debugging recipe -- fires at the
wrong moment)
"""
import jax
import jax.numpy as jnp


@jax.custom_jvp
def f(x):
    print("called f!")
    return jnp.sin(x)


@f.defjvp
def f_jvp(primals, tangents):
    print("called f_jvp!")
    x, = primals
    t, = tangents
    return f(x), jnp.cos(x) * t


print("jvp:")
jax.jvp(f, (3.,), (1.,))


@jax.custom_vjp
def g(x):
    print("called f!")
    return jnp.sin(x)


def g_fwd(x):
    print("called f_fwd!")
    return g(x), jnp.cos(x)


def g_bwd(cos_x, y_bar):
    print("called f_bwd!")
    return (cos_x * y_bar,)


g.defvjp(g_fwd, g_bwd)
print("grad:")
jax.grad(g)(3.)
print("vjp:")
y, g_vjp = jax.vjp(g, 3.)
print("-- calling f_vjp --")
g_vjp(1.)
