"""`import jax` means astjax (issue 16, item 1): `astjax.install_as_jax()` and
`python -m astjax run`. Each case runs in a fresh process whose path holds a fake
real `jax` that fails loudly if it is ever imported."""
import os
import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent("""
    import sys
    import jax
    import jax.numpy as jnp
    from jax import lax
    import jax.version, jax.tree_util, jax.scipy.special, jax.typing, jax.flatten_util
    import astjax

    def loss(w, x):
        return jnp.sum(jnp.tanh(x @ w) ** 2)

    g = jax.jit(jax.grad(loss))(jnp.ones(3), jnp.ones((2, 3)))
    assert jnp is astjax.numpy and lax is astjax.lax
    assert jax.__version__ == jax.version.__version__ == "0.10.2"
    assert jax.__version_info__ == (0, 10, 2) and astjax.__version__ != "0.10.2"
    try:
        import jax.no_such_module
    except ModuleNotFoundError as e:
        assert "jax.no_such_module" in str(e)
    else:
        raise AssertionError("a missing jax module must not import")
    # an attribute read of a module no one imported yet (JAX's `import jax` imports it)
    assert jax._src.xla_bridge._backends.get("cpu") is not None
    assert not hasattr(jax, "no_such_module")
    print("OK", round(float(g[0]), 5), sys.argv[1:], __name__)
""")


@pytest.fixture
def fake_real_jax(tmp_path):
    """A `jax` package that stands for the real distribution: importing any of it
    fails the test."""
    pkg = tmp_path / "site" / "jax"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("raise SystemExit('the real jax was imported')\n")
    (pkg / "numpy.py").write_text("raise SystemExit('the real jax.numpy was imported')\n")
    return tmp_path / "site"


def _run(args, site, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(site)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    return subprocess.run([sys.executable] + args, env=env, capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)


def test_install_as_jax(tmp_path, fake_real_jax):
    script = tmp_path / "prog.py"
    script.write_text("import astjax\nastjax.install_as_jax()\n" + PROGRAM)
    out = _run([str(script), "a"], fake_real_jax, tmp_path)
    assert out.returncode == 0, out.stderr + out.stdout
    assert out.stdout.split()[0] == "OK" and "['a']" in out.stdout


def test_python_m_astjax_run(tmp_path, fake_real_jax):
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    out = _run(["-m", "astjax", "run", str(script), "--flag", "1"], fake_real_jax, tmp_path)
    assert out.returncode == 0, out.stderr + out.stdout
    assert "['--flag', '1'] __main__" in out.stdout


def test_python_m_astjax_run_module(tmp_path, fake_real_jax):
    (tmp_path / "mymod.py").write_text(PROGRAM)
    out = _run(["-m", "astjax", "run", "-m", "mymod", "x"], fake_real_jax, tmp_path)
    assert out.returncode == 0, out.stderr + out.stdout
    assert "['x'] __main__" in out.stdout


def test_run_errors_are_one_line(tmp_path, fake_real_jax):
    out = _run(["-m", "astjax", "run", "missing.py"], fake_real_jax, tmp_path)
    assert out.returncode == 2 and "no such file: missing.py" in out.stderr
    assert "Traceback" not in out.stderr
    out = _run(["-m", "astjax", "run"], fake_real_jax, tmp_path)
    assert out.returncode == 2 and "give SCRIPT or -m MODULE" in out.stderr


def test_install_after_real_jax_is_refused(tmp_path, fake_real_jax):
    (fake_real_jax / "jax" / "__init__.py").write_text("REAL = True\n")
    script = tmp_path / "prog.py"
    script.write_text("import jax\nimport astjax\ntry:\n    astjax.install_as_jax()\n"
                      "except RuntimeError as e:\n    print('refused', e)\n")
    out = _run([str(script)], fake_real_jax, tmp_path)
    assert out.returncode == 0 and "refused" in out.stdout, out.stderr
