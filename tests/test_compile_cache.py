"""The persistent compile cache: a second process gets hits and the same results."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

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


# --------------------------------------------------------- damaged entries (R14)
# Each case damages the entries a first process wrote, then runs the program again in
# a new process: it must neither crash nor run another program's executable.

TWO = textwrap.dedent("""
    import json
    import numpy as np
    import astjax
    from astjax.codegen import compile_cache

    def add1(x):
        return x + 1.0

    def times2(x):
        return x * 2.0

    x = np.arange(4, dtype=np.float32)
    a = np.asarray(astjax.jit(add1)(x)).tolist()
    b = np.asarray(astjax.jit(times2)(x)).tolist()
    print(json.dumps({"stats": compile_cache.stats, "a": a, "b": b}))
""")


def _run_two(tmp_path, cache):
    script = tmp_path / "two.py"
    script.write_text(TWO)
    env = dict(os.environ, ASTJAX_COMPILE_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, f"rc={out.returncode}\n{out.stderr}"
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stderr


def _entries(cache):
    return sorted(cache / p for p in os.listdir(cache) if p.endswith(".xlaexe"))


def _flip_middle(path):
    data = bytearray(path.read_bytes())
    mid = len(data) // 2
    for i in range(mid, mid + 16):
        data[i] ^= 0xA5
    path.write_bytes(bytes(data))


def _swap(a, b):
    da, db = a.read_bytes(), b.read_bytes()
    a.write_bytes(db)
    b.write_bytes(da)


def _truncate(path):
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 3])


def _old_format(path):
    # an entry of the previous format: the serialized executable without a header
    path.write_bytes(path.read_bytes()[compile_cache._HEADER.size:])


@pytest.mark.parametrize("damage", ["flip", "swap", "truncate", "empty", "old_format"])
def test_damaged_entries_are_discarded(tmp_path, damage):
    cache = tmp_path / "cache"
    first, _ = _run_two(tmp_path, cache)
    assert first["a"] == [1.0, 2.0, 3.0, 4.0] and first["b"] == [0.0, 2.0, 4.0, 6.0]
    e1, e2 = _entries(cache)
    if damage == "flip":
        _flip_middle(e1)
        _flip_middle(e2)
    elif damage == "swap":
        _swap(e1, e2)
    elif damage == "truncate":
        _truncate(e1)
        _truncate(e2)
    elif damage == "empty":
        e1.write_bytes(b"")
        e2.write_bytes(b"")
    else:
        _old_format(e1)
        _old_format(e2)
    again, err = _run_two(tmp_path, cache)
    assert again["a"] == first["a"] and again["b"] == first["b"]
    assert again["stats"]["errors"] == 2 and again["stats"]["hits"] == 0
    assert err.count("discarded damaged entry") == 1        # said once per process
    third, _ = _run_two(tmp_path, cache)                     # rewritten: hits again
    assert third["stats"]["hits"] == 2 and third["stats"]["errors"] == 0


def test_entry_format_roundtrip_and_checks():
    key = "ab" * 32
    entry = compile_cache.pack_entry(key, b"payload")
    assert compile_cache.unpack_entry(entry, key) == b"payload"
    for bad, why in [(entry[:-1], "payload of"), (entry[:10], "shorter"),
                     (b"X" + entry[1:], "not an astjax"),
                     (compile_cache.pack_entry("cd" * 32, b"payload"), "another program"),
                     (entry[:-1] + b"Q", "checksum")]:
        with pytest.raises(ValueError, match=why):
            compile_cache.unpack_entry(bad, key)


def test_signature_parsing():
    text = ("module @m {\n  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: "
            "tensor<i32>) -> (tensor<2x3xcomplex<f32>>, tensor<f32>) {\n")
    assert compile_cache.mlir_signature(text) == ([(2, 3), ()], [(2, 3), ()])
    assert compile_cache._same_signature(([(2, 3)], [()]), ([(2, 3)], [()]), 1)
    assert not compile_cache._same_signature(([(2, 3)], [()]), ([(3, 2)], [()]), 1)
    assert compile_cache._same_signature(([(4, 3)], [()]), ([(2, 3)], [()]), 2)
