"""lineax: linear_solve with several solvers and operators, gradients through it;
optimistix: root_find / minimise / least_squares / fixed_point."""
import json

import jax
import jax.numpy as jnp
import jax.random as jr
import lineax as lx
import optimistix as optx

out = {}
m = jr.normal(jr.PRNGKey(0), (4, 4))
spd = m @ m.T + 4 * jnp.eye(4)
b = jnp.arange(1., 5.)
op = lx.MatrixLinearOperator(spd)
for name, solver in [("lu", lx.LU()), ("qr", lx.QR()), ("svd", lx.SVD()),
                     ("cholesky", lx.Cholesky()), ("cg", lx.CG(rtol=1e-6, atol=1e-6)),
                     ("gmres", lx.GMRES(rtol=1e-6, atol=1e-6)),
                     ("bicgstab", lx.BiCGStab(rtol=1e-6, atol=1e-6)),
                     ("normalcg", lx.NormalCG(rtol=1e-6, atol=1e-6)),
                     ("auto", lx.AutoLinearSolver(well_posed=True))]:
    o = lx.TaggedLinearOperator(op, lx.positive_semidefinite_tag) if name in ("cg", "cholesky") else op
    out[f"solve_{name}"] = lx.linear_solve(o, b, solver).value.tolist()
out["diag"] = lx.linear_solve(lx.DiagonalLinearOperator(jnp.arange(1., 5.)), b).value.tolist()
out["tridiag"] = lx.linear_solve(lx.TridiagonalLinearOperator(jnp.full(4, 4.), jnp.ones(3),
                                                              jnp.ones(3)), b).value.tolist()
out["lower"] = lx.linear_solve(lx.MatrixLinearOperator(jnp.tril(spd), lx.lower_triangular_tag),
                               b).value.tolist()
rect = m[:, :3]
out["lstsq_qr"] = lx.linear_solve(lx.MatrixLinearOperator(rect), b, lx.QR()).value.tolist()
out["lstsq_svd"] = lx.linear_solve(lx.MatrixLinearOperator(rect), b, lx.SVD()).value.tolist()
fop = lx.FunctionLinearOperator(lambda x: spd @ x, jax.ShapeDtypeStruct((4,), jnp.float32))
out["function_op"] = lx.linear_solve(fop, b, lx.LU()).value.tolist()
jop = lx.JacobianLinearOperator(lambda x, args: jnp.sin(x) * 3 + x, jnp.arange(4.) / 4)
out["jacobian_op"] = lx.linear_solve(jop, b).value.tolist()


def solve_loss(mat, vec):
    return jnp.sum(lx.linear_solve(lx.MatrixLinearOperator(mat), vec).value ** 2)


gm, gv = jax.grad(solve_loss, argnums=(0, 1))(spd, b)
out["solve_grad_mat"] = gm.tolist()
out["solve_grad_vec"] = gv.tolist()
out["solve_vmap"] = jax.vmap(lambda v: lx.linear_solve(op, v).value)(jnp.stack([b, 2 * b])).tolist()
out["solve_jit_cg"] = jax.jit(lambda v: lx.linear_solve(
    lx.TaggedLinearOperator(op, lx.positive_semidefinite_tag), v,
    lx.CG(rtol=1e-6, atol=1e-6)).value)(b).tolist()


def fn(y, args):
    return jnp.tanh(y + 1) - y


for name, solver in [("newton", optx.Newton(rtol=1e-6, atol=1e-6)),
                     ("chord", optx.Chord(rtol=1e-6, atol=1e-6)),
                     ("bisection", optx.Bisection(rtol=1e-6, atol=1e-6))]:
    y0 = jnp.array(0.) if name != "bisection" else jnp.array(0.)
    opts = dict(lower=-3., upper=3.) if name == "bisection" else {}
    sol = optx.root_find(fn, solver, y0, options=opts)
    out[f"root_{name}"] = float(sol.value)


def rosenbrock(y, args):
    return jnp.sum(100 * (y[1:] - y[:-1] ** 2) ** 2 + (1 - y[:-1]) ** 2)


y0 = jnp.array([-1.2, 1.0, 0.5])
for name, solver in [("bfgs", optx.BFGS(rtol=1e-6, atol=1e-6)),
                     ("nonlinear_cg", optx.NonlinearCG(rtol=1e-6, atol=1e-6)),
                     ("nelder_mead", optx.NelderMead(rtol=1e-6, atol=1e-6))]:
    sol = optx.minimise(rosenbrock, solver, y0, max_steps=10000)
    out[f"min_{name}"] = sol.value.tolist()


def residuals(y, args):
    t, obs = args
    return y[0] * jnp.exp(-y[1] * t) - obs


t = jnp.linspace(0., 2., 10)
obs = 2.5 * jnp.exp(-1.3 * t) + 0.01 * jnp.sin(7 * t)
for name, solver in [("lm", optx.LevenbergMarquardt(rtol=1e-6, atol=1e-6)),
                     ("gauss_newton", optx.GaussNewton(rtol=1e-6, atol=1e-6)),
                     ("dogleg", optx.Dogleg(rtol=1e-6, atol=1e-6))]:
    sol = optx.least_squares(residuals, solver, jnp.array([1., 1.]), args=(t, obs))
    out[f"lsq_{name}"] = sol.value.tolist()

sol = optx.fixed_point(lambda y, a: jnp.cos(y), optx.FixedPointIteration(rtol=1e-6, atol=1e-6),
                       jnp.array(1.))
out["fixed_point"] = float(sol.value)


def root_of(a):
    return optx.root_find(lambda y, a: y ** 3 - a, optx.Newton(rtol=1e-8, atol=1e-8),
                          jnp.array(1.), args=a).value


out["root_implicit_grad"] = float(jax.grad(root_of)(8.))
out["root_vmap"] = jax.vmap(root_of)(jnp.array([1., 8., 27.])).tolist()
print(json.dumps(out))
