"""Records tests/oracle/linalg_more.json with JAX 0.10.2 (run with /work/jaxref/bin/python):
lax.linalg tridiagonal_solve (+ its gradient), tridiagonal, ormqr and scipy.linalg
solve_sylvester and funm on fixed inputs (`python record_linalg_more.py > linalg_more.json`);
tests/test_linalg_more.py compares."""
import numpy as np, json
import jax, jax.numpy as jnp, jax.scipy.linalg as S
from jax.lax import linalg as L
rng = np.random.default_rng(0)
out = {}
m = 4
dl = np.array([0., 1., -0.5, 0.25], np.float32); d = np.array([4., 3., 5., 2.], np.float32)
du = np.array([1., 0.5, -1., 0.], np.float32); b = np.arange(8, dtype=np.float32).reshape(4, 2)
out['tds'] = np.asarray(L.tridiagonal_solve(dl, d, du, b)).tolist()
g = jax.grad(lambda dl, d, du, b: (L.tridiagonal_solve(dl, d, du, b) ** 2).sum(), argnums=(0,1,2,3))(dl, d, du, b)
out['tds_grad'] = [np.asarray(x).tolist() for x in g]
A = np.array([[4., 1., 2., 0.5], [1., 3., 0., 1.], [2., 0., 5., 1.], [0.5, 1., 1., 2.]], np.float32)
for lower in (True, False):
    r = L.tridiagonal(A, lower=lower)
    out[f'trid_{lower}'] = [np.asarray(x).tolist() for x in r]
h, taus = jnp.linalg.qr(A[:, :3], mode='raw')
c = np.arange(12, dtype=np.float32).reshape(4, 3)
out['ormqr'] = np.asarray(L.ormqr(h.mT, taus, c, left=True, transpose=True)).tolist()
out['ormqr_right'] = np.asarray(L.ormqr(h.mT, taus, c.T, left=False, transpose=False)).tolist()
out['sylv'] = np.asarray(S.solve_sylvester(A, A[:2, :2] + 1, np.arange(8, dtype=np.float32).reshape(4, 2))).tolist()
out['funm'] = np.asarray(S.funm(A[:3, :3] - np.eye(3, dtype=np.float32) * 2, jnp.exp)).real.tolist()
print(json.dumps(out))
