"""Shared by the benchmark scripts: the seeds' MLP as source text, and `run_source`,
which writes source to a real file before executing it (astjax stages functions
from their source, so code made by `exec` of a string needs a file behind it)."""
import linecache
import os
import tempfile

# The seeds' MLP; `jax` and `jnp` come from the namespace it runs in.
MLP_SRC = '''
def predict(params, inputs):
    for W, b in params:
        outputs = jnp.dot(inputs, W) + b
        inputs = jnp.tanh(outputs)
    return outputs


def loss(params, batch):
    inputs, targets = batch
    preds = predict(params, inputs)
    return jnp.sum((preds - targets) ** 2)


def update(params, x, y):
    grads = jax.grad(loss)(params, (x, y))
    return [(w - 0.001 * dw, b - 0.001 * db) for (w, b), (dw, db) in zip(params, grads)]
'''


def run_source(src, tag, ns):
    """Execute `src` in namespace `ns` from a file named after `tag`; returns `ns`."""
    d = os.path.join(tempfile.gettempdir(), "astjax_bench")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, f"{tag}_{os.getpid()}.py")
    with open(path, "w") as f:
        f.write(src)
    linecache.checkcache(path)
    exec(compile(src, path, "exec"), ns)
    return ns
