"""Differential checks of one generated program (issue 12, item 1).

Reference: the program's "ref" rendering run by plain Python with `jnp` = NumPy in
float64. Checks (each 'pass', 'skip', 'wrong' or 'crash'):

- jit64 / jit32: `astjax.jit(f)` with x64 on / off against the reference;
- grad: `astjax.grad(loss, argnums=(0, 1))` against central differences (only where
  h=1e-6 and h=1e-4 agree); jitgrad: `jit(grad(loss))`; vmap: `vmap(f)` over a batch
  of x against a Python loop; vmapgrad: `vmap(grad(loss))` against the differences;
- source / sourcegrad: `astjax.source_function(f | grad(loss), ...)` run eagerly and
  re-jitted.

Programs whose reference moves by more than 1e-4 (relative) under a 1e-12 relative
perturbation of the inputs are ill-conditioned and skipped; jit32 additionally
needs the reference to be stable under a 1e-6 perturbation.

A failure's *signature* is the check, the exception type, the innermost frame inside
astjax and the message with names and numbers blanked: what the reducer preserves
and the long-run summary groups by.
"""
from __future__ import annotations

import importlib.util
import itertools
import os
import re
import sys
import tempfile
import traceback
import warnings

import numpy as np

CHECKS = ("jit64", "jit32", "grad", "jitgrad", "vmap", "vmapgrad", "source", "sourcegrad")
_counter = itertools.count()
_TMP = None


def tmpdir():
    global _TMP
    if _TMP is None:
        _TMP = tempfile.mkdtemp(prefix="astjax_fuzz_")
    return _TMP


def load(text, tag):
    """Write `text` to a real file (astjax reads source through inspect) and import it."""
    name = f"fuzzprog_{tag}_{os.getpid()}_{next(_counter)}"
    path = os.path.join(tmpdir(), name + ".py")
    with open(path, "w") as fh:
        fh.write(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def inputs(seed):
    rng = np.random.default_rng(seed + 7919)
    x = rng.uniform(-1.2, 1.2, 3)
    s = rng.uniform(-1.0, 1.0)
    n = int(rng.integers(0, 4))
    w = rng.uniform(-1.0, 1.0, 3)
    b = rng.uniform(-1.0, 1.0)
    xb = rng.uniform(-1.2, 1.2, (2, 3))
    return x, s, n, w, b, xb


def make_p(ptype, w, b, conv):
    return {"w": conv(w), "b": conv(b)} if ptype == "dict" else (conv(w), conv(b))


# ---------------------------------------------------------------- signatures
_ASTJAX_DIR = None


def _astjax_dir():
    global _ASTJAX_DIR
    if _ASTJAX_DIR is None:
        import astjax
        _ASTJAX_DIR = os.path.dirname(astjax.__file__)
    return _ASTJAX_DIR


def blank(msg):
    msg = msg.split("\n")[0][:160]
    msg = re.sub(r"'[^']*'|`[^`]*`|\"[^\"]*\"", "'_'", msg)
    msg = re.sub(r"\b(ag__\w+|fuzzprog_\w+|[a-z]\d+)\b", "_", msg)
    msg = re.sub(r"-?\d+(\.\d+)?(e-?\d+)?", "N", msg)
    msg = re.sub(r"\[[^\]]*\]", "[_]", msg)
    return msg


def signature(check, exc):
    """`Type @ innermost astjax frame: blanked message` (the check is kept apart so
    one root cause seen by several checks groups once)."""
    frame = "?"
    root = _astjax_dir()
    for fs in traceback.extract_tb(exc.__traceback__):
        if fs.filename.startswith(root):
            frame = f"{os.path.relpath(fs.filename, os.path.dirname(root))}:{fs.name}"
    msg = getattr(exc, "message", None) or str(exc)
    if hasattr(exc, "message"):   # a located astjax error: re-raised at the API
        frame = "located"
    return f"{type(exc).__name__} @ {frame}: {blank(msg)}"


class Wrong(Exception):
    pass


# ---------------------------------------------------------------- the checks
def close(got, want, rtol, atol):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        raise Wrong(f"shape {got.shape} != {want.shape}")
    if not np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
        err = np.max(np.abs(got - want))
        raise Wrong(f"max abs err {err:.3g}: got {np.round(got, 6).tolist()} "
                    f"want {np.round(want, 6).tolist()}")


class Case:
    """One program: the reference module, its values and the checks' verdicts."""

    def __init__(self, prog, checks=CHECKS):
        self.prog = prog
        self.checks = checks
        self.results = {}      # check -> ('pass'|'skip'|'wrong'|'crash', signature or '')
        self.status = None     # 'invalid', 'ill', or None (ran)

    # reference ----------------------------------------------------------------
    def reference(self):
        x, s, n, w, b, xb = self.vals = inputs(self.prog.seed)
        ptype = self.prog.ptype
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                try:
                    ref = load(self.prog.render("ref"), "ref")
                    self.ref = ref
                    fx = lambda x_, s_, w_=w, b_=b: np.asarray(  # noqa: E731
                        ref.f(np.array(x_), np.float64(s_), n, make_p(ptype, w_, b_, np.array)),
                        dtype=np.float64)
                    self.fx = fx
                    y = fx(x, s)
                    if y.shape != (3,) or not np.all(np.isfinite(y)):
                        self.status = "invalid"
                        return False
                    self.y = y
                    ok12 = all(np.allclose(fx(x * (1 + d), s * (1 + d)), y, rtol=1e-4, atol=1e-4)
                               for d in (1e-12, -1e-12))
                    if not ok12:
                        self.status = "ill"
                        return False
                    self.stable32 = all(np.allclose(fx(x * (1 + d), s * (1 + d)), y, rtol=1e-3,
                                                    atol=1e-3) for d in (1e-6, -1e-6))
                    self.yb = np.stack([fx(r, s) for r in xb])
                    self.fd = self.central(x, s)
                    self.fdb = [self.central(r, s) for r in xb]
                except Exception as e:  # noqa: BLE001  (the program is invalid Python)
                    self.status = "invalid"
                    self.invalid_reason = f"{type(e).__name__}: {e}"
                    return False
        return True

    def central(self, x, s):
        """Gradient of loss by central differences, or None where h=1e-6 and h=1e-4
        disagree (a kink or a discontinuity nearby)."""
        W = np.array([0.3, -0.7, 1.1])
        L = lambda x_, s_: float(np.sum(self.fx(x_, s_) * W))  # noqa: E731
        grads = []
        for h in (1e-6, 1e-4):
            gx = np.array([(L(x + h * e, s) - L(x - h * e, s)) / (2 * h) for e in np.eye(3)])
            gs = (L(x, s + h) - L(x, s - h)) / (2 * h)
            grads.append((gx, gs))
        (a, b), (c, d) = grads
        if not (np.allclose(a, c, rtol=1e-3, atol=1e-4) and np.isclose(b, d, rtol=1e-3, atol=1e-4)):
            return None
        return a, b

    # checks -------------------------------------------------------------------
    def run(self):
        if not self.reference():
            return self
        import astjax
        old = astjax.config.read("jax_enable_x64")
        try:
            astjax.config.update("jax_enable_x64", True)
            self.mod = load(self.prog.render("jax"), "jax")
            for c in self.checks:
                self.results[c] = self.one(c)
        finally:
            astjax.config.update("jax_enable_x64", old)
        return self

    def one(self, check):
        import astjax
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                getattr(self, "c_" + check)(astjax)
            return ("pass", "")
        except Skip:
            return ("skip", "")
        except Wrong as e:
            return ("wrong", "wrong answer", str(e))
        except Exception as e:  # noqa: BLE001
            return ("crash", signature(check, e), f"{type(e).__name__}: {e}")

    def args(self, conv=np.array):
        x, s, n, w, b, xb = self.vals
        return conv(x), conv(np.float64(s)), n, make_p(self.prog.ptype, w, b, conv)

    def c_jit64(self, astjax):
        close(astjax.jit(self.mod.f)(*self.args()), self.y, 1e-6, 1e-8)

    def c_jit32(self, astjax):
        if not self.stable32:
            raise Skip
        astjax.config.update("jax_enable_x64", False)
        try:
            x, s, p = (np.float32, np.float32, np.float32)
            args = self.args(lambda v: np.asarray(v, dtype=np.float32))
            out = astjax.jit(self.mod.f)(*args)
            if str(out.dtype) != "float32":
                raise Wrong(f"dtype {out.dtype} under x32")
            close(out, self.y, 2e-3, 2e-3)
        finally:
            astjax.config.update("jax_enable_x64", True)

    def _grad_ok(self, got, fd):
        if fd is None:
            raise Skip
        gx, gs = got
        close(gx, fd[0], 1e-4, 1e-5)
        close(gs, fd[1], 1e-4, 1e-5)

    def c_grad(self, astjax):
        self._grad_ok(astjax.grad(self.mod.loss, argnums=(0, 1))(*self.args()), self.fd)

    def c_jitgrad(self, astjax):
        self._grad_ok(astjax.jit(astjax.grad(self.mod.loss, argnums=(0, 1)))(*self.args()),
                      self.fd)

    def c_vmap(self, astjax):
        _, s, n, p = self.args()
        out = astjax.vmap(self.mod.f, in_axes=(0, None, None, None))(self.vals[5], s, n, p)
        close(out, self.yb, 1e-6, 1e-8)

    def c_vmapgrad(self, astjax):
        if any(g is None for g in self.fdb):
            raise Skip
        _, s, n, p = self.args()
        gx, gs = astjax.vmap(astjax.grad(self.mod.loss, argnums=(0, 1)),
                             in_axes=(0, None, None, None))(self.vals[5], s, n, p)
        for k in range(2):
            close(gx[k], self.fdb[k][0], 1e-4, 1e-5)
            close(gs[k], self.fdb[k][1], 1e-4, 1e-5)

    def c_source(self, astjax):
        args = self.args()
        g = astjax.source_function(self.mod.f, *args)
        close(g(*args), self.y, 1e-6, 1e-8)
        close(astjax.jit(g)(*args), self.y, 1e-6, 1e-8)

    def c_sourcegrad(self, astjax):
        if self.fd is None:
            raise Skip
        args = self.args()
        g = astjax.source_function(astjax.grad(self.mod.loss, argnums=(0, 1)), *args)
        self._grad_ok(g(*args), self.fd)
        self._grad_ok(astjax.jit(g)(*args), self.fd)

    def failures(self):
        return {c: r for c, r in self.results.items() if r[0] in ("wrong", "crash")}


class Skip(Exception):
    pass


def run_program(prog, checks=CHECKS):
    return Case(prog, checks).run()
