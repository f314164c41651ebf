"""The persistent compile cache: a second process gets hits and the same results."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np

import astjax
from astjax.codegen import compile_cache

PROGRAM = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    import astjax, astjax.numpy as jnp
    from astjax import lax
    from astjax.codegen import compile_cache

    def layer(x, w):
        for _ in range(4):
            x = jnp.tanh(x @ w)
        return x

    def allsum(x):
        return lax.psum(x, "i")

    t = time.perf_counter()
    y = astjax.jit(layer)(np.ones((32, 32), np.float32), np.eye(32, dtype=np.float32) * 0.5)
    y.block_until_ready()
    first = time.perf_counter() - t
    z = astjax.pmap(allsum, axis_name="i")(np.arange(2, dtype=np.float32))
    print(json.dumps({"stats": compile_cache.stats, "first_call_s": first,
                      "y": float(np.asarray(y).sum()), "z": np.asarray(z).tolist()}))
""")


def _run(tmp_path, cache_dir, extra_env=None):
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    env = dict(os.environ, ASTJAX_COMPILE_CACHE_DIR=str(cache_dir),
               ASTJAX_NUM_CPU_DEVICES="2", **(extra_env or {}))
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_second_process_hits(tmp_path):
    cache = tmp_path / "cache"
    first = _run(tmp_path, cache)
    assert first["stats"]["hits"] == 0 and first["stats"]["misses"] >= 2
    assert first["stats"]["writes"] == first["stats"]["misses"]
    entries = [p for p in os.listdir(cache) if p.endswith(".xlaexe")]
    assert len(entries) == first["stats"]["writes"]
    second = _run(tmp_path, cache)
    assert second["stats"]["misses"] == 0
    assert second["stats"]["hits"] == first["stats"]["misses"]
    assert second["y"] == first["y"] and second["z"] == first["z"] == [1.0, 1.0]


def test_key_separates_flags_and_devices(tmp_path):
    cache = tmp_path / "cache"
    _run(tmp_path, cache)
    other = _run(tmp_path, cache, {"XLA_FLAGS": "--xla_cpu_enable_fast_math=false"})
    assert other["stats"]["hits"] == 0   # different XLA flags: a different key


def test_corrupt_entry_is_recompiled(tmp_path):
    cache = tmp_path / "cache"
    first = _run(tmp_path, cache)
    for p in os.listdir(cache):
        (cache / p).write_bytes(b"not an executable")
    again = _run(tmp_path, cache)
    assert again["stats"]["errors"] == first["stats"]["misses"]
    assert again["y"] == first["y"]


def test_in_process_config_option(tmp_path):
    old = astjax.config.read("astjax_compile_cache_dir")
    astjax.config.update("astjax_compile_cache_dir", str(tmp_path))
    try:
        before = dict(compile_cache.stats)
        f = astjax.jit(lambda x: x * 3.0 + 0.25)
        np.testing.assert_allclose(np.asarray(f(np.arange(7, dtype=np.float32))),
                                   np.arange(7) * 3 + 0.25)
        assert compile_cache.stats["writes"] > before["writes"] or \
            compile_cache.stats["hits"] > before["hits"]
        assert any(p.endswith(".xlaexe") for p in os.listdir(tmp_path))
        assert compile_cache.clear(str(tmp_path)) >= 1
    finally:
        astjax.config.update("astjax_compile_cache_dir", old)
