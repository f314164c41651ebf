"""Data-parallel (JAX's spmd_mnist_classifier_fromscratch pattern) and
tensor-parallel (column/row-sharded MLP) training on 4 CPU devices, written
against JAX's API, against JAX 0.10.2's losses, accuracy and layouts (stored in
tests/oracle/spmd_training.json by tests/oracle/record_spmd_training.py)."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp

from oracle.record_spmd_training import run
from oracle import compare

EXPECTED = compare.load("spmd_training")

pytestmark = pytest.mark.skipif(len(jax.devices()) < 4, reason="needs 4 devices "
                                "(ASTJAX_NUM_CPU_DEVICES=4, set by conftest.py)")


def test_training_matches_jax():
    got = run(jax, jnp)
    assert set(got) == set(EXPECTED)
    for k, want in EXPECTED.items():
        if isinstance(want, list) and want and isinstance(want[0], float):
            np.testing.assert_allclose(got[k], want, rtol=1e-5, err_msg=k)
        elif isinstance(want, float):
            np.testing.assert_allclose(got[k], want, rtol=1e-5, err_msg=k)
        else:
            assert got[k] == want, k


# Printed by `python examples/spmd_tensor_parallel.py --jax` with jax 0.10.2.
TENSOR_PARALLEL_OUTPUT = (
    'step  0 loss 2.9393\n'
    'step  5 loss 0.0395\n'
    'step 10 loss 0.0175\n'
    'step 15 loss 0.0163\n'
    'per-device layout after training:\n'
    "  w1 (64, 256) P(None, 'model')  -> 0:(64, 128), 1:(64, 128), 2:(64, 128), 3:(64, 128)\n"
    "  b1 (256,) P('model',)  -> 0:(128,), 1:(128,), 2:(128,), 3:(128,)\n"
    "  w2 (256, 10) P('model',)  -> 0:(128, 10), 1:(128, 10), 2:(128, 10), 3:(128, 10)\n"
    '  b2 (10,) P()  -> 0:(10,), 1:(10,), 2:(10,), 3:(10,)\n'
)


def test_tensor_parallel_example_prints_what_jax_prints():
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, ASTJAX_NUM_CPU_DEVICES="4")
    r = subprocess.run([sys.executable, str(root / "examples" / "spmd_tensor_parallel.py")],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == TENSOR_PARALLEL_OUTPUT


# Printed by `python examples/spmd_gpt_2d.py --jax` with jax 0.10.2 on 8 CPU devices
# (the compile and step times, which vary, left out): losses, the collectives XLA
# inserted into the partitioned step, and every parameter's layout.
GPT_2D_OUTPUT = (
    "collectives per step: {'all-gather': 2, 'all-reduce': 4}\n"
    'step  0 loss 6.5099\n'
    'step  4 loss 6.4531\n'
    'step  8 loss 6.3150\n'
    '  emb   (512, 256)   P()                    shards [(512, 256)]\n'
    '  ln1   (256,)       P()                    shards [(256,)]\n'
    '  ln2   (256,)       P()                    shards [(256,)]\n'
    '  lnf   (256,)       P()                    shards [(256,)]\n'
    "  w1    (256, 1024)  P(None, 'model')       shards [(256, 256)]\n"
    "  w2    (1024, 256)  P('model',)            shards [(256, 256)]\n"
    "  wo    (256, 256)   P('model',)            shards [(64, 256)]\n"
    "  wqkv  (256, 768)   P(None, 'model')       shards [(256, 192)]\n"
)


@pytest.mark.parametrize("flag", ["", "--gspmd"])
def test_gpt_2d_example_prints_what_jax_prints(flag):
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, ASTJAX_NUM_CPU_DEVICES="8")
    r = subprocess.run([sys.executable, str(root / "examples" / "spmd_gpt_2d.py")]
                       + ([flag] if flag else []),
                       capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = [ln for ln in r.stdout.splitlines(keepends=True)
             if not ln.startswith(("compile:", "step time:"))]
    assert "".join(lines) == GPT_2D_OUTPUT


# Printed by `python examples/spmd_data_parallel.py --jax` with jax 0.10.2 on 4 CPU
# devices (the per-epoch times, which vary, left out): accuracies and layouts.
DATA_PARALLEL_OUTPUT = (
    'Training set accuracy 0.8257\n'
    'Test set accuracy 0.7051\n'
    'Training set accuracy 0.9619\n'
    'Test set accuracy 0.8691\n'
    'Training set accuracy 0.9890\n'
    'Test set accuracy 0.9121\n'
    'layout of a batch (device: rows):\n'
    '  cpu:0: 0:32\n'
    '  cpu:1: 32:64\n'
    '  cpu:2: 64:96\n'
    '  cpu:3: 96:128\n'
    'parameters: P(None, None) (a full copy on each of 4 devices)\n'
)


def test_data_parallel_example_prints_what_jax_prints():
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, ASTJAX_NUM_CPU_DEVICES="4")
    r = subprocess.run([sys.executable, str(root / "examples" / "spmd_data_parallel.py")],
                       capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = [ln for ln in r.stdout.splitlines(keepends=True) if not ln.startswith("Epoch")]
    assert "".join(lines) == DATA_PARALLEL_OUTPUT
