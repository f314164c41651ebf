"""diffrax: ODE solves, adjoint gradients, a neural ODE step, an SDE."""
import json

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import jax.random as jr
import optax

out = {}


def f(t, y, args):
    return -y


term = diffrax.ODETerm(f)
sol = diffrax.diffeqsolve(term, diffrax.Dopri5(), t0=0, t1=1, dt0=0.1, y0=jnp.array([2., 3.]))
out["readme_dopri5"] = sol.ys.tolist()


def lotka(t, y, args):
    a, b, c, d = args
    prey, pred = y
    return jnp.stack([a * prey - b * prey * pred, -c * pred + d * prey * pred])


args = (0.1, 0.02, 0.4, 0.02)
ts = jnp.linspace(0., 30., 7)
sol = diffrax.diffeqsolve(diffrax.ODETerm(lotka), diffrax.Tsit5(), 0., 30., 0.1,
                          jnp.array([10., 10.]), args=args, saveat=diffrax.SaveAt(ts=ts),
                          stepsize_controller=diffrax.PIDController(rtol=1e-6, atol=1e-6))
out["lotka_tsit5_pid"] = sol.ys.tolist()
out["lotka_steps"] = int(sol.stats["num_steps"])


def robertson(t, y, args):
    k1, k2, k3 = 0.04, 3e7, 1e4
    y1, y2, y3 = y
    return jnp.stack([-k1 * y1 + k3 * y2 * y3, k1 * y1 - k2 * y2 ** 2 - k3 * y2 * y3,
                      k2 * y2 ** 2])


sol = diffrax.diffeqsolve(diffrax.ODETerm(robertson), diffrax.Kvaerno5(), 0., 10., 1e-3,
                          jnp.array([1., 0., 0.]),
                          stepsize_controller=diffrax.PIDController(rtol=1e-5, atol=1e-7))
out["robertson_kvaerno5"] = sol.ys.tolist()


def loss(y0, adjoint):
    s = diffrax.diffeqsolve(diffrax.ODETerm(lotka), diffrax.Dopri5(), 0., 5., 0.05, y0,
                            args=args, adjoint=adjoint,
                            stepsize_controller=diffrax.PIDController(rtol=1e-7, atol=1e-7))
    return jnp.sum(s.ys[-1] ** 2)


y0 = jnp.array([10., 10.])
out["grad_recursive_checkpoint"] = jax.grad(loss)(y0, diffrax.RecursiveCheckpointAdjoint()).tolist()
out["grad_backsolve"] = jax.grad(loss)(y0, diffrax.BacksolveAdjoint()).tolist()
out["grad_direct"] = jax.grad(loss)(y0, diffrax.DirectAdjoint()).tolist()


class Func(eqx.Module):
    mlp: eqx.nn.MLP

    def __call__(self, t, y, args):
        return self.mlp(y)


class NeuralODE(eqx.Module):
    func: Func

    def __call__(self, ts, y0):
        s = diffrax.diffeqsolve(diffrax.ODETerm(self.func), diffrax.Tsit5(), ts[0], ts[-1],
                                ts[1] - ts[0], y0, saveat=diffrax.SaveAt(ts=ts),
                                stepsize_controller=diffrax.PIDController(rtol=1e-3, atol=1e-6))
        return s.ys


model = NeuralODE(Func(eqx.nn.MLP(2, 2, 16, 2, activation=jax.nn.softplus, key=jr.PRNGKey(0))))
ts = jnp.linspace(0., 1., 8)
y0s = jr.normal(jr.PRNGKey(1), (4, 2))
target = jax.vmap(lambda y: jnp.stack([y * jnp.exp(-t) for t in ts]))(y0s)


@eqx.filter_value_and_grad
def node_loss(model, y0s, target):
    pred = jax.vmap(model, in_axes=(None, 0))(ts, y0s)
    return jnp.mean((pred - target) ** 2)


opt = optax.adabelief(1e-2)
opt_state = opt.init(eqx.filter(model, eqx.is_inexact_array))


@eqx.filter_jit
def step(model, opt_state):
    l, g = node_loss(model, y0s, target)
    updates, opt_state = opt.update(g, opt_state)
    return l, eqx.apply_updates(model, updates), opt_state


losses = []
for _ in range(3):
    l, model, opt_state = step(model, opt_state)
    losses.append(float(l))
out["neural_ode_losses"] = losses

bm = diffrax.VirtualBrownianTree(0., 1., tol=1e-3, shape=(), key=jr.PRNGKey(3))
sde = diffrax.MultiTerm(diffrax.ODETerm(lambda t, y, a: -y),
                        diffrax.ControlTerm(lambda t, y, a: 0.1 * t, bm))
sol = diffrax.diffeqsolve(sde, diffrax.Euler(), 0., 1., 0.05, 1.0,
                          saveat=diffrax.SaveAt(ts=jnp.linspace(0., 1., 5)))
out["sde_euler"] = sol.ys.tolist()
print(json.dumps(out))
