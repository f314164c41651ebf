"""The benchmark workloads, written once against JAX's API.

Each workload is a function `(jax, jnp, lax, param) -> list[float]` run inside a
worker process where `jax` is either real JAX or astjax (`import astjax as jax`), so
both implementations run the very same program text. It returns samples in the
unit its `Workload` entry declares (seconds per call, seconds, or megabytes).

Code that astjax must stage from source (the generated long functions, nested
conds, Python loops) is written to a real file by `common.run_source` first; every
first-call sample uses a freshly generated function so no cache can answer it.
"""
from __future__ import annotations

import ctypes
import gc
import itertools
import os
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from common import MLP_SRC, run_source

_fresh = itertools.count()


@dataclass(frozen=True)
class Workload:
    """A row of the table (`param` fixed) or a point of a scaling curve."""
    name: str
    run: Callable
    unit: str                  # "s/call", "s" or "MB"
    what: str                  # one line for the table
    param: int = 0
    quick: bool = True         # part of `--quick`
    goal: float | None = None  # the goal ratio astjax/JAX, if any


class Sampler:
    """A per-call workload, set up: each `sample()` is one timed loop of `loops`
    calls, in seconds per call. The first result is blocked on (and so warms the
    caches) outside every sample."""

    def __init__(self, fn, loops, repeats, block):
        self.fn, self.loops, self.repeats, self.block = fn, loops, repeats, block
        block(fn())

    def sample(self):
        """Seconds per call over one timed loop (the last result blocked on)."""
        fn, block, loops = self.fn, self.block, self.loops
        t0 = time.perf_counter()
        for _ in range(loops - 1):
            fn()
        block(fn())
        return (time.perf_counter() - t0) / loops


# Set by the driver's serving worker (`run.py --serve`): per-call workloads then
# return their `Sampler`, whose samples the driver asks for one at a time,
# alternating with the other library's worker.
SERVE = [False]


def _per_call(fn, loops, repeats, block):
    """Samples of seconds per call: `repeats` timed loops of `loops` calls (or, in a
    serving worker, the `Sampler` that takes them)."""
    sampler = Sampler(fn, loops, repeats, block)
    if SERVE[0]:
        return sampler
    return [sampler.sample() for _ in range(repeats)]


def _fresh_source(src, ns):
    """A fresh function's namespace. The garbage of the samples and rows before
    (their functions sit in reference cycles with their namespaces, holding their
    staged programs) is collected first, outside the timed region, for both
    libraries: one large collection of it otherwise landed inside whichever sample
    came next (2026-11-27: every worker's second depth-5 nesting sample, 42-62 ms for
    astjax against ~2.5 ms, and JAX's second depth-2 sample, 97-109 ms)."""
    gc.collect()
    return run_source(src, f"w{next(_fresh)}", ns)


# ------------------------------------------------------------------ dispatch and eager

def eager_op(jax, jnp, lax, param):
    z = jnp.asarray(np.linspace(0, 1, 16, dtype=np.float32))
    y = jnp.asarray(np.ones(16, np.float32))
    return _per_call(lambda: jnp.sin(z) * 0.5 + y, 500, 7, jax.block_until_ready)


def _placed(values, dtype, offset):
    """A NumPy array of `values` whose data starts `offset` bytes past a 64-byte
    boundary. jaxlib's CPU transfer takes a 64-byte-aligned NumPy buffer without a
    copy and copies any other, so a row on fresh arrays read where malloc happened to
    put them in each process (2026-11-29: one of JAX's two inputs aligned under
    callgrind, ~2,000 of its 9,400-instruction lead per call): both sides get the
    same placement."""
    v = np.asarray(values, dtype)
    raw = np.zeros(v.nbytes + 64 + offset, np.uint8)
    start = (offset - raw.ctypes.data) % 64
    out = raw[start:start + v.nbytes].view(dtype)
    out[...] = v
    return out


def jit_numpy_io(jax, jnp, lax, param):
    jf = jax.jit(lambda x, y: x * y + 1.0)
    x = _placed([1.0, 1.0, 1.0], np.float32, 16)   # (malloc's usual 16-byte alignment:
    y = _placed([2.0, 2.0, 2.0], np.float32, 16)   # both copied, as most inputs are)
    return _per_call(lambda: np.asarray(jf(x, y)), 2000, 7, lambda r: r)


def jit_pytree(jax, jnp, lax, param):
    leaves = param or 900
    tree = {f"k{i}": jnp.asarray(np.full(2, i, np.float32)) for i in range(leaves)}
    jf = jax.jit(lambda t: jax.tree_util.tree_map(lambda a: a * 2.0, t))
    loops = max(20, 20000 // leaves)
    return _per_call(lambda: jf(tree), loops, 7, jax.block_until_ready)


def _small_mlp(jax, jnp):
    ns = _fresh_source(MLP_SRC, {"jax": jax, "jnp": jnp})
    rng = np.random.RandomState(0)
    sizes = [8, 16, 16, 4]
    params = [(jnp.asarray(rng.randn(m, n).astype(np.float32)),
               jnp.asarray(rng.randn(n).astype(np.float32)))
              for m, n in zip(sizes[:-1], sizes[1:])]
    x = jnp.asarray(rng.randn(32, 8).astype(np.float32))
    y = jnp.asarray(rng.randn(32, 4).astype(np.float32))
    return ns, params, x, y


def grad_unjitted(jax, jnp, lax, param):
    ns, params, x, y = _small_mlp(jax, jnp)
    loss = ns["loss"]
    # a new grad(loss) object every step, as a training loop written without jit does
    return _per_call(lambda: jax.grad(loss)(params, (x, y)), 20, 5, jax.block_until_ready)


_FRESH_JIT_SRC = '''
def f(x, y):
    return jnp.sin(x) * y + 1.0
'''


def fresh_jit(jax, jnp, lax, param):
    f = _fresh_source(_FRESH_JIT_SRC, {"jnp": jnp})["f"]
    x = jnp.ones(16)
    y = jnp.ones(16)
    return _per_call(lambda: jax.jit(f)(x, y), 100, 5, jax.block_until_ready)


# ------------------------------------------------------------------ staging and first call

def _long_source(n, k=0):
    # `k` makes each sample a different program (a different constant): astjax's
    # in-memory executable cache is keyed by the module text, so repeating one text
    # would time a cache hit, not a first call.
    lines = ["def f(x):", f"    a0 = x * {1.0 + k * 1e-4!r}"]
    for i in range(1, n + 1):
        j = max(0, i - 1 - (i % 3))
        lines.append(f"    a{i} = jnp.sin(a{i - 1}) * 0.5 + a{j} * 0.25")
    lines.append(f"    return a{n}")
    return "\n".join(lines) + "\n"


def statements_first_call(jax, jnp, lax, param):
    """stage + compile + run of a fresh `param`-statement function."""
    x = jnp.ones(8)
    out = []
    for k in range(3):
        f = _fresh_source(_long_source(param, k), {"jnp": jnp})["f"]
        t0 = time.perf_counter()
        jax.block_until_ready(jax.jit(f)(x))
        out.append(time.perf_counter() - t0)
    return out


def _nested_cond_source(depth):
    lines = ["def f(x):", f"    def b{depth}(x):", "        return jnp.sin(x)"]
    for d in range(depth - 1, -1, -1):
        lines += [f"    def b{d}(x):",
                  f"        return lax.cond(jnp.sum(x) > {d}.0, b{d + 1}, "
                  f"lambda y: y * 2.0 - 1.0, x)"]
    lines.append("    return b0(x)")
    return "\n".join(lines) + "\n"


def _staging_samples(jax, jnp, lax, depth, transform, n=3):
    x = jnp.ones(4)
    out = []
    for _ in range(n):
        f = _fresh_source(_nested_cond_source(depth), {"jnp": jnp, "lax": lax})["f"]
        t0 = time.perf_counter()
        jax.make_jaxpr(transform(jax, f))(x)
        out.append(time.perf_counter() - t0)
    return out


def nested_cond_staging(jax, jnp, lax, param):
    return _staging_samples(jax, jnp, lax, param, lambda jax, f: f)


def grad_nested_cond_staging(jax, jnp, lax, param):
    return _staging_samples(jax, jnp, lax, param,
                            lambda jax, f: jax.grad(lambda x: jnp.sum(f(x))))


_LOOP_SRC = '''
def f(x):
    for i in range(N):
        x = jnp.sin(x) * 0.5 + x * SCALE
    return x
'''


def python_loop_first_call(jax, jnp, lax, param):
    x = jnp.ones(8)
    out = []
    for k in range(2):  # a different constant per sample: a first call, not a cache hit
        src = _LOOP_SRC.replace("N", str(param)).replace("SCALE", repr(0.5 + k * 1e-4))
        f = _fresh_source(src, {"jnp": jnp})["f"]
        t0 = time.perf_counter()
        jax.block_until_ready(jax.jit(f)(x))
        out.append(time.perf_counter() - t0)
    return out


# ------------------------------------------------------------------ steady state

def mlp_step(jax, jnp, lax, param):
    ns = _fresh_source(MLP_SRC, {"jax": jax, "jnp": jnp})
    rng = np.random.RandomState(0)
    sizes = [784, 512, 512, 10]
    params = [(jnp.asarray(rng.randn(m, n).astype(np.float32) * 0.01),
               jnp.asarray(np.zeros(n, np.float32)))
              for m, n in zip(sizes[:-1], sizes[1:])]
    x = jnp.asarray(rng.randn(128, 784).astype(np.float32))
    y = jnp.asarray(rng.randn(128, 10).astype(np.float32))
    step = jax.jit(ns["update"])
    state = [params]

    def run():
        state[0] = step(state[0], x, y)
        return state[0]
    return _per_call(run, 20, 5, jax.block_until_ready)


def per_example_grads(jax, jnp, lax, param):
    ns, params, x, y = _small_mlp(jax, jnp)
    loss = ns["loss"]
    pex = jax.jit(jax.vmap(lambda p, a, b: jax.grad(loss)(p, (a[None], b[None])),
                           in_axes=(None, 0, 0)))
    return _per_call(lambda: pex(params, x, y), 200, 5, jax.block_until_ready)


_GPT_SRC = '''
def layer_norm(x, g, b):
    m = jnp.mean(x, -1, keepdims=True)
    v = jnp.mean((x - m) ** 2, -1, keepdims=True)
    return (x - m) / jnp.sqrt(v + 1e-5) * g + b


def block(p, x):
    B, T, D = x.shape
    H = 4
    h = layer_norm(x, p["g1"], p["b1"])
    qkv = h @ p["wqkv"]
    q, k, v = jnp.split(qkv, 3, axis=-1)
    q = q.reshape(B, T, H, D // H).transpose(0, 2, 1, 3)
    k = k.reshape(B, T, H, D // H).transpose(0, 2, 1, 3)
    v = v.reshape(B, T, H, D // H).transpose(0, 2, 1, 3)
    att = q @ k.transpose(0, 1, 3, 2) / jnp.sqrt(D // H)
    mask = jnp.tril(jnp.ones((T, T), bool))
    att = jnp.where(mask, att, -1e9)
    att = jax.nn.softmax(att, axis=-1)
    y = (att @ v).transpose(0, 2, 1, 3).reshape(B, T, D)
    x = x + y @ p["wo"]
    h = layer_norm(x, p["g2"], p["b2"])
    return x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]


def loss(params, tokens, targets):
    x = params["emb"][tokens] + params["pos"]
    for p in params["blocks"]:
        x = block(p, x)
    logits = x @ params["emb"].T
    logp = jax.nn.log_softmax(logits, -1)
    return -jnp.mean(jnp.take_along_axis(logp, targets[..., None], -1))


def train_step(params, tokens, targets):
    l, g = jax.value_and_grad(loss)(params, tokens, targets)
    return jax.tree_util.tree_map(lambda p, d: p - 1e-3 * d, params, g), l
'''


def gpt_step(jax, jnp, lax, param):
    ns = _fresh_source(_GPT_SRC, {"jax": jax, "jnp": jnp})
    d, t, b, vocab = 256, 128, 8, 512
    rng = np.random.RandomState(0)

    def w(*shape):
        return jnp.asarray(rng.randn(*shape).astype(np.float32) * 0.02)
    blocks = [dict(g1=jnp.ones(d), b1=jnp.zeros(d), g2=jnp.ones(d), b2=jnp.zeros(d),
                   wqkv=w(d, 3 * d), wo=w(d, d), w1=w(d, 4 * d), w2=w(4 * d, d))
              for _ in range(2)]
    params = dict(emb=w(vocab, d), pos=w(t, d), blocks=blocks)
    tokens = jnp.asarray(rng.randint(0, vocab, (b, t)).astype(np.int32))
    targets = jnp.asarray(rng.randint(0, vocab, (b, t)).astype(np.int32))
    step = jax.jit(ns["train_step"])
    state = [params]

    def run():
        state[0], l = step(state[0], tokens, targets)
        return l
    return _per_call(run, 5, 5, jax.block_until_ready)


# ------------------------------------------------------------------ XLA compile

# JAX's examples/mnist_vae.py: the decoder (10 -> 512 -> 512 -> 784, relu), then
# `image_sample` and its 10 x 10 `image_grid` (100 slices of one RNG-made array).
# SCALE differs per sample so that no cache (astjax keeps executables by module text)
# can answer: every sample is a real XLA compile of a new program.
_VAE_SRC = '''
def decode(params, z):
    for w, b in params[:-1]:
        z = jnp.maximum(jnp.dot(z, w) + b, 0.0)
    w, b = params[-1]
    return jnp.dot(z, w) + b


def image_grid(nrow, ncol, imagevecs, imshape):
    images = iter(imagevecs.reshape((-1,) + imshape))
    return jnp.vstack([jnp.hstack([next(images).T for _ in range(ncol)][::-1])
                       for _ in range(nrow)]).T


def image_sample(rng, params):
    nrow, ncol = 10, 10
    code_rng, img_rng = random.split(rng)
    logits = decode(params, random.normal(code_rng, (nrow * ncol, 10)) * SCALE)
    sampled_images = random.bernoulli(img_rng, jnp.logaddexp(0., logits))
    return image_grid(nrow, ncol, sampled_images, (28, 28))
'''


def mnist_vae_compile(jax, jnp, lax, param):
    """XLA compile time (`.lower(...)` excluded) of the mnist_vae sample grid."""
    rng = np.random.RandomState(0)
    sizes = [10, 512, 512, 784]
    params = [(jnp.asarray(rng.randn(m, n).astype(np.float32) * 0.05),
               jnp.asarray(np.zeros(n, np.float32))) for m, n in zip(sizes[:-1], sizes[1:])]
    key = jax.random.PRNGKey(0)
    out = []
    for _ in range(param):
        k = next(_fresh)
        ns = _fresh_source(_VAE_SRC.replace("SCALE", repr(1.0 + k * 1e-4)),
                           {"jnp": jnp, "random": jax.random})
        lowered = jax.jit(ns["image_sample"]).lower(key, params)
        t0 = time.perf_counter()
        compiled = lowered.compile()
        out.append(time.perf_counter() - t0)
        jax.block_until_ready(compiled(key, params))
    return out


# ------------------------------------------------------------------ memory

def _malloc_trim():
    """glibc's `malloc_trim(0)`: give the free pages of every malloc arena back to the
    system; None where the C library has no such call (then RSS is read as it is)."""
    try:
        libc = ctypes.CDLL(None)
        return libc.malloc_trim(0) if hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


def _rss_mb():
    """Resident set size (MB) of memory in use: read after `gc.collect()` and
    `_malloc_trim()`, so free heap pages the allocator still holds do not count."""
    gc.collect()
    _malloc_trim()
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def rss_jit_calls(jax, jnp, lax, param):
    """Persistent RSS growth (MB) over `param` calls of one jitted function on the same
    inputs: RSS of memory in use before and after (`_rss_mb`). Raw RSS also counts
    free heap pages the calls' transient allocations touch, which depends on what ran
    before in the process (benchmarks/README.md, "The RSS row")."""
    jf = jax.jit(lambda x, y: jnp.sin(x) * y + 1.0)
    x, y = jnp.ones(16), jnp.ones(16)
    for _ in range(2000):
        jf(x, y)
    jax.block_until_ready(jf(x, y))
    before = _rss_mb()
    for i in range(param):
        r = jf(x, y)
        if i % 1000 == 0:
            jax.block_until_ready(r)
    jax.block_until_ready(r)
    del r
    return [_rss_mb() - before]


# ------------------------------------------------------------------ linalg and conv

def _spd(n):
    a = np.random.RandomState(n).randn(n, n).astype(np.float32)
    return a @ a.T / n + np.eye(n, dtype=np.float32)


def linalg_eigh(jax, jnp, lax, param):
    f, a = jax.jit(jnp.linalg.eigh), jnp.asarray(_spd(param))
    return _per_call(lambda: f(a), 10, 5, jax.block_until_ready)


def linalg_svd(jax, jnp, lax, param):
    f, a = jax.jit(jnp.linalg.svd), jnp.asarray(_spd(param))
    return _per_call(lambda: f(a), 10, 5, jax.block_until_ready)


def linalg_solve(jax, jnp, lax, param):
    a = jnp.asarray(_spd(param))
    b = jnp.asarray(np.ones((param, 8), np.float32))
    f = jax.jit(jnp.linalg.solve)
    return _per_call(lambda: f(a, b), 20, 5, jax.block_until_ready)


def conv_nhwc(jax, jnp, lax, param):
    """3x3 SAME convolution, NHWC, batch 32, `param` x `param` pixels, 32 -> 32 channels."""
    rng = np.random.RandomState(0)
    x = jnp.asarray(rng.randn(32, param, param, 32).astype(np.float32))
    w = jnp.asarray(rng.randn(3, 3, 32, 32).astype(np.float32) * 0.1)
    f = jax.jit(lambda x, w: lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")))
    return _per_call(lambda: f(x, w), 10, 5, jax.block_until_ready)


# ------------------------------------------------------------------ the table

TABLE = [
    Workload("eager_op", eager_op, "s/call", "eager op `jnp.sin(z) * 0.5 + y`, f32[16]", goal=1.1),
    Workload("jit_numpy_io", jit_numpy_io, "s/call", "`jit` dispatch, NumPy in / out", goal=1.1),
    Workload("jit_pytree", jit_pytree, "s/call", "`jit` dispatch, 900-leaf pytree", 900, goal=1.1),
    Workload("grad_unjitted", grad_unjitted, "s/call", "un-jitted `grad(f)(x)` per step (small MLP)", goal=1.0),
    Workload("fresh_jit", fresh_jit, "s/call", "a fresh `jit(f)` per call", goal=1.0),
    Workload("statements_600", statements_first_call, "s", "600-statement function, first call", 600, goal=1.0),
    Workload("nested_cond_14", nested_cond_staging, "s", "14-deep nested `lax.cond`, staging", 14, goal=1.0),
    Workload("grad_nested_cond_12", grad_nested_cond_staging, "s", "`grad` through 12 nested conds, staging", 12, goal=1.0),
    Workload("gpt_step", gpt_step, "s/call", "GPT-style train step (d=256, T=128, B=8, 2 layers)", goal=1.0),
    Workload("mlp_step", mlp_step, "s/call", "seeds' MLP step [784, 512, 512, 10], batch 128", goal=1.0),
    Workload("per_example_grads", per_example_grads, "s/call", "per-example grads (`jit(vmap(grad))`)", goal=1.0),
    Workload("loop_1000_first_call", python_loop_first_call, "s", "1000-step Python loop, first call", 1000, goal=1.0),
    Workload("mnist_vae_compile", mnist_vae_compile, "s", "JAX's mnist_vae sample grid, XLA compile", 1, goal=1.1),
    Workload("eigh_64", linalg_eigh, "s/call", "`jit(linalg.eigh)`, f32[64, 64]", 64, False, 1.1),
    Workload("eigh_256", linalg_eigh, "s/call", "`jit(linalg.eigh)`, f32[256, 256]", 256, False, 1.1),
    Workload("svd_64", linalg_svd, "s/call", "`jit(linalg.svd)`, f32[64, 64]", 64, False, 1.1),
    Workload("svd_256", linalg_svd, "s/call", "`jit(linalg.svd)`, f32[256, 256]", 256, False, 1.1),
    Workload("solve_64", linalg_solve, "s/call", "`jit(linalg.solve)`, f32[64, 64] x 8 rhs", 64, False, 1.1),
    Workload("solve_256", linalg_solve, "s/call", "`jit(linalg.solve)`, f32[256, 256] x 8 rhs", 256, False, 1.1),
    Workload("conv_16", conv_nhwc, "s/call", "3x3 conv NHWC, batch 32, 16x16x32 -> 32", 16, False, 1.1),
    Workload("conv_32", conv_nhwc, "s/call", "3x3 conv NHWC, batch 32, 32x32x32 -> 32", 32, False, 1.1),
    Workload("rss_jit_calls", rss_jit_calls, "MB", "RSS growth over 10^6 `jit` calls (MB, not a ratio)", 1_000_000),
]

CURVES = {
    "statements": (statements_first_call, "s", "first call vs number of statements",
                   [100, 250, 500, 1000, 2000], [100, 500]),
    "nesting": (nested_cond_staging, "s", "nested `lax.cond` staging vs depth",
                [2, 5, 10, 20, 40], [2, 10]),
    "loop_body": (python_loop_first_call, "s", "Python loop first call vs trip count",
                  [10, 100, 1000], [10, 100]),
    "leaves": (jit_pytree, "s/call", "`jit` dispatch vs pytree leaves",
               [10, 100, 1000, 10000], [10, 1000]),
}
