"""What higher layers observe of the runtime without replacing its functions.

`config_api` (debug_nans/infs), `compat/_compile_log` (`jax.log_compiles`),
`monitoring` and `config_guards` subscribe here; `codegen/runtime.py` re-exports these
names and fires them. Listeners run synchronously in subscription order; an exception
one raises reaches the caller (debug_nans raises FloatingPointError so). Hot paths only
test the lists for emptiness (or the hook for None)."""

compile_listeners: list = []   # f(text, seconds): each compile_mlir (XLA compile or cache load)
execute_listeners: list = []   # f(where, outputs): each eager primitive; where = its name
h2d_hook = [None]   # f(aval, device) before each host-to-device copy: config_guards


def subscribe(listeners: list, fn) -> None:
    """Add `fn` to `compile_listeners` or `execute_listeners` (once)."""
    if fn not in listeners:
        listeners.append(fn)


def unsubscribe(listeners: list, fn) -> None:
    """Remove `fn` from an event's listeners (no error if absent)."""
    if fn in listeners:
        listeners.remove(fn)


def notify_execute(where: str, outs) -> None:
    """Tell the execute listeners that `where` produced `outs` (a list of Arrays)."""
    for fn in tuple(execute_listeners):
        fn(where, outs)
