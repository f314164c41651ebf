"""A GPT-style block (causal self-attention + MLP, pre-layer-norm, tied embedding)
trained on a 2-D (data x model) mesh: the batch over `data`, attention heads and
the MLP's hidden units over `model` (Megatron's layout: QKV and the first MLP
weight split by columns, the output projections by rows), embeddings replicated.
The program is written once, globally; XLA's SPMD partitioner keeps each device's
slices local and inserts the collectives. It prints the loss, each parameter's
layout, the collectives of the partitioned step, its compile and step time: the
measurable half of the plan in docs/scaling.md ("A 2-D mesh over many hosts").

Run: python examples/spmd_gpt_2d.py            (astjax, 8 CPU devices, 2 x 4 mesh)
     python examples/spmd_gpt_2d.py --jax      (the same file on JAX)
     python examples/spmd_gpt_2d.py --gspmd    (GSPMD instead of Shardy)
"""
import os
import re
import statistics
import sys
import time

os.environ.setdefault("ASTJAX_NUM_CPU_DEVICES", "8")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
if "--gspmd" in sys.argv:
    os.environ["JAX_USE_SHARDY_PARTITIONER"] = "false"
if "--jax" in sys.argv:
    import jax
else:
    import astjax as jax
import numpy as np

jnp = jax.numpy
NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec

VOCAB, D, HEADS, HIDDEN, SEQ, BATCH = 512, 256, 8, 1024, 64, 16


def layer_norm(x, g):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / jnp.sqrt(v + 1e-5) * g


def block(p, x):
    b, t, _ = x.shape
    h = layer_norm(x, p["ln1"])
    qkv = (h @ p["wqkv"]).reshape(b, t, 3, HEADS, D // HEADS)   # heads on `model`
    q, k, v = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]
    s = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(D // HEADS)
    mask = np.tril(np.ones((t, t), bool))
    s = jnp.where(mask, s, -1e9)
    a = jax.nn.softmax(s, axis=-1)
    o = jnp.einsum("bhqk,bkhd->bqhd", a, v).reshape(b, t, D)
    x = x + o @ p["wo"]                                         # rows on `model`
    h = layer_norm(x, p["ln2"])
    return x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]


def loss(p, tokens):
    x = p["emb"][tokens[:, :-1]]
    x = block(p, x)
    logits = layer_norm(x, p["lnf"]) @ p["emb"].T
    logp = jax.nn.log_softmax(logits, axis=-1)
    target = tokens[:, 1:]
    return -jnp.mean(jnp.take_along_axis(logp, target[..., None], axis=-1))


LAYOUT = {"emb": P(), "ln1": P(), "ln2": P(), "lnf": P(),
          "wqkv": P(None, "model"), "wo": P("model", None),
          "w1": P(None, "model"), "w2": P("model", None)}


def init(rng):
    shapes = {"emb": (VOCAB, D), "ln1": (D,), "ln2": (D,), "lnf": (D,),
              "wqkv": (D, 3 * D), "wo": (D, D), "w1": (D, HIDDEN), "w2": (HIDDEN, D)}
    return {k: (np.ones(s, np.float32) if k.startswith("ln") else
                (rng.randn(*s) / np.sqrt(s[0])).astype(np.float32)) for k, s in shapes.items()}


def collectives(hlo_text):
    """Collective operations in a partitioned HLO module, by kind."""
    found = re.findall(r"= \S+ (all-reduce|all-gather|reduce-scatter|all-to-all|"
                       r"collective-permute)(?:-start)?\(", hlo_text)
    return {k: found.count(k) for k in sorted(set(found))}


def main():
    auto = jax.sharding.AxisType.Auto
    mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(auto, auto))
    rng = np.random.RandomState(0)
    params = {k: jax.device_put(v, NamedSharding(mesh, LAYOUT[k]))
              for k, v in init(rng).items()}
    data = NamedSharding(mesh, P("data"))
    corpus = rng.randint(0, VOCAB, (8 * BATCH, SEQ + 1)).astype(np.int32)

    @jax.jit
    def update(p, tokens):
        l, g = jax.value_and_grad(loss)(p, tokens)
        return {k: p[k] - 0.1 * g[k] for k in p}, l

    tokens = jax.device_put(corpus[:BATCH], data)
    t = time.perf_counter()
    compiled = update.lower(params, tokens).compile()
    print(f"compile: {time.perf_counter() - t:.2f} s")
    print("collectives per step:", collectives(compiled.as_text()))
    times = []
    for step in range(12):
        tokens = jax.device_put(corpus[(step % 8) * BATCH:(step % 8 + 1) * BATCH], data)
        t = time.perf_counter()
        params, l = update(params, tokens)
        l = float(l)
        times.append(time.perf_counter() - t)
        if step % 4 == 0:
            print(f"step {step:2d} loss {l:.4f}")
    print(f"step time: {statistics.median(times[2:]) * 1e3:.1f} ms (median)")
    for k in sorted(params):
        v = params[k]
        shards = sorted({tuple(s.data.shape) for s in v.addressable_shards})
        print(f"  {k:5s} {str(v.shape):12s} {v.sharding.spec!r:22s} shards {shards}")


if __name__ == "__main__":
    main()
