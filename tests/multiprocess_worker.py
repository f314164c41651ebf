"""One process of tests/test_multiprocess.py's two-process job:
`python tests/multiprocess_worker.py PROCESS_ID NUM_PROCESSES PORT [--slurm] [--die]`
prints one JSON line of what it sees (devices, its shards of sharded-jit and
shard_map results); with `--slurm` it joins the job from Slurm's environment
variables alone (`jax.distributed.initialize()`)."""
import json
import sys
import time

import numpy as np

import astjax as jax


def main():
    pid, nproc, port = (int(a) for a in sys.argv[1:4])
    if "--slurm" in sys.argv:   # everything from the (simulated) Slurm environment
        jax.distributed.initialize(heartbeat_timeout_seconds=5)
    else:
        jax.distributed.initialize(f"127.0.0.1:{port}", nproc, pid,
                                   heartbeat_timeout_seconds=5)
    jnp = jax.numpy
    if "--die" in sys.argv:   # process 1 dies; process 0 must not wait for ever
        if pid == 1:
            import os
            os._exit(3)
        time.sleep(2)
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec
    out = {"process_index": jax.process_index(), "process_count": jax.process_count(),
           "devices": [[d.id, d.process_index] for d in jax.devices()],
           "local": [d.id for d in jax.local_devices()],
           "device_count": jax.device_count(), "local_device_count": jax.local_device_count()}
    mesh = jax.make_mesh((jax.device_count(),), ("i",))
    s = NamedSharding(mesh, P("i"))
    per = 2 * jax.local_device_count()
    local = np.arange(per, dtype=np.float32) + per * pid   # this process's rows of arange
    x = jax.make_array_from_process_local_data(s, local)
    out["global_shape"] = list(x.shape)
    out["fully_addressable"] = x.is_fully_addressable
    y = jax.jit(lambda v: v * 2)(x)
    out["y_shards"] = [[sh.index[0].start, np.asarray(sh.data).tolist()]
                       for sh in y.addressable_shards]
    total = jax.jit(lambda v: jnp.sum(v), out_shardings=NamedSharding(mesh, P()))(x)
    out["sum"] = float(total)
    ps = jax.jit(jax.shard_map(lambda v: jax.lax.psum(v, "i"), mesh=mesh, in_specs=P("i"),
                               out_specs=P()))(x)
    out["psum"] = np.asarray(ps).tolist()
    try:
        np.asarray(y)
        out["gather"] = "no error"
    except RuntimeError as e:
        out["gather"] = str(e)[:40]
    # the multi-process guide's toy example: each process maps over its local devices
    xs = jnp.ones(jax.local_device_count())
    r = jax.pmap(lambda v: jax.lax.psum(v, "i"), axis_name="i")(xs)
    out["toy_pmap"] = np.asarray(r).tolist()
    out["toy_pmap_index"] = np.asarray(jax.pmap(
        lambda v: v * jax.lax.axis_index("i"), axis_name="i")(xs)).tolist()
    from astjax.compat.experimental import multihost_utils as mh   # jax.experimental's
    out["allgather"] = mh.process_allgather(np.float32(10 + pid)).tolist()
    out["allgather_global"] = mh.process_allgather(y).tolist()
    out["broadcast"] = mh.broadcast_one_to_all(np.arange(3) + 100 * pid).tolist()
    mh.sync_global_devices("done")
    out["local_block"] = mh.global_array_to_host_local_array(y, mesh, P("i")).tolist()
    print(json.dumps(out), flush=True)
    jax.distributed.shutdown()


if __name__ == "__main__":
    main()
