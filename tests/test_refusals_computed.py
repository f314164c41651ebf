"""Calls JAX 0.10.2 computes that astjax refused before issue 13, against JAX's recorded
outcomes (`tests/oracle/refusals_computed.json`, from `record_refusals_computed.py`, on
4 CPU devices): multi-platform lowering, ShapeDtypeStructs with shardings, tokens at
the jit boundary, `pmap(axis_size=, backend=)` and `qdwh(dynamic_shape=)`.

Every scenario's result is compared with JAX's: values (within float32 rounding for
the iterative qdwh), dtypes and shardings; errors by JAX's builtin class and, where
the table names one, a phrase of JAX's message; module text exactly, or the part the
table names where astjax's text is another form of the same program."""
import functools
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax import lax
from astjax.codegen import runtime
from astjax.core import ShapedArray
from astjax.errors import AstjaxError
from astjax.primitives.ffi_call import Token

sys.path.insert(0, str(Path(__file__).parent / "oracle"))
from record_refusals_computed import (SCENARIOS, PADDED, X3, _by_platform,  # noqa: E402
                                      namespace, summarize)

RECORDED = json.loads((Path(__file__).parent / "oracle" /
                       "refusals_computed.json").read_text())
J = namespace(jax, jnp, lax, jax.sharding)
_BUILTIN = {"ValueError": ValueError, "TypeError": TypeError, "RuntimeError": RuntimeError}

# how a text result is compared: "exact", or a function of (jax's, astjax's) text
_MAIN = re.compile(r"func\.func public @main\(.*")


def _same_main_signature(theirs, ours):
    assert _MAIN.search(ours).group() == _MAIN.search(theirs).group()


def _same_argument_layout(theirs, ours):
    layout = re.search(r"%arg0: tensor<8x2xf32> \{sdy\.sharding = [^}]*\}", theirs).group()
    assert layout in ours


TEXT = {"mp_dependent_text": _same_main_signature, "sds_text": _same_argument_layout}
# a phrase of JAX's message astjax's must contain too
MESSAGES = {
    "mp_gpu_name": "Unknown backend: 'gpu' requested, but no platforms that are instances "
                   "of gpu are present",
    "sds_call_committed_elsewhere": "Computation was compiled for input shardings that "
                                    "disagree with the shardings of arguments passed to it",
    "sds_call_replicated": "Passed sharding: NamedSharding(mesh=Mesh('x': 4, axis_types="
                           "(Auto,)), spec=P(), memory_kind=device)",
    "sds_indivisible": "implies that array axis 0 is partitioned 4 times, but the "
                       "dimension size is 7",
    "sds_pspec_without_mesh": "Error interpreting argument to",
    "pmap_axis_size_mismatch": "Specified axis_size 2 doesn't match received axis_size 4.",
    "pmap_axis_size_unmapped": "pmap requires at least one argument with a mapped axis.",
    "pmap_backend_gpu": "Unknown backend: 'gpu' requested",
    "pmap_global_arg_shapes": "unexpected keyword argument 'global_arg_shapes'",
    "qdwh_wide": "The input matrix of shape M x N must have M >= N.",
    "memory_kind_unknown": "Device cpu can address the following memory kinds: device, "
                           "pinned_host, unpinned_host. Got memory kind: foo",
}
# the iterative qdwh: float32 rounding of a few dozen dependent operations
TOLERANCE = {"qdwh_padded_jit": 2e-5}
# JAX's values other checks read (qdwh of the unpadded matrix: the padded one's inside)
REFERENCE_ONLY = ("qdwh_unpadded",)


def _compare(name, theirs, ours, tol):
    if "items" in theirs:
        assert len(ours["items"]) == len(theirs["items"]), name
        for a, b in zip(theirs["items"], ours["items"]):
            _compare(name, a, b, tol)
    elif "text" in theirs:
        TEXT.get(name, lambda t, o: (t == o) or pytest.fail(f"{name}:\n{o}\n!=\n{t}"))(
            theirs["text"], ours["text"])
    elif "value" in theirs:
        assert ours["dtype"] == theirs["dtype"], name
        np.testing.assert_allclose(np.asarray(ours["value"], theirs["dtype"]),
                                   np.asarray(theirs["value"], theirs["dtype"]),
                                   rtol=tol, atol=tol, err_msg=name)
        assert ours.get("sharding") == theirs.get("sharding"), name
    else:
        assert ours == theirs, name


# JAX 0.10.2 fails inside its own dispatch here (AttributeError: 'AbstractToken' object
# has no attribute 'shape', from the compiled call's argument check); astjax computes
# what the jitted call computes (test_compiled_call_with_tokens)
JAX_FAILS = ("tok_compiled_call",)


@functools.cache
def _ours(name):
    """astjax's result of a scenario, summarized (computed once: several tests read
    it; an exception propagates)."""
    return summarize(SCENARIOS[name](J))


@pytest.mark.parametrize("name", sorted(set(SCENARIOS) - set(JAX_FAILS) - set(REFERENCE_ONLY)))
def test_as_jax(name):
    assert len(jax.devices()) >= 4, "conftest.py sets ASTJAX_NUM_CPU_DEVICES=4"
    theirs = RECORDED[name]
    if "raises" in theirs:
        with pytest.raises(_BUILTIN[theirs["raises"]]) as e:
            SCENARIOS[name](J)
        if name in MESSAGES:
            assert MESSAGES[name] in theirs["message"]   # (the phrase is JAX's)
            assert MESSAGES[name] in str(e.value)
        # astjax's located class, or JAX's own (IndivisibleError, RuntimeError, Python's
        # TypeError for an unknown keyword)
        assert isinstance(e.value, AstjaxError) or type(e.value).__name__ == theirs["class"]
        return
    _compare(name, theirs, _ours(name), TOLERANCE.get(name, 1e-6))


def test_padded_qdwh_is_zero_outside_and_the_unpadded_polar_inside():
    """JAX's padded factors are exactly zero outside the true 6 x 4 block and are the
    unpadded matrix's factors inside; so are astjax's."""
    theirs, ours = RECORDED["qdwh_padded_jit"]["items"], _ours("qdwh_padded_jit")["items"]
    for rows, t, o in zip((6, 4), theirs, ours):
        t, o = np.asarray(t["value"]), np.asarray(o["value"])
        assert not t[rows:].any() and not t[:, 4:].any()
        assert not o[rows:].any() and not o[:, 4:].any()
    u, h = (np.asarray(RECORDED["qdwh_unpadded"]["items"][i]["value"]) for i in range(2))
    np.testing.assert_allclose(np.asarray(ours[0]["value"])[:6, :4], u, atol=2e-5)
    np.testing.assert_allclose(np.asarray(ours[1]["value"])[:4, :4], h, atol=2e-5)
    assert PADDED[6:].any()   # (the padding is not zeros: it is masked out)


def test_multi_platform_module_runs_the_indexed_platforms_program():
    """The module lowered for ('cpu', 'cuda') with platform-dependent code, run by XLA
    with the platform index 0 and 1: JAX's values of the CPU branch and of the CUDA
    branch (JAX itself cannot compile the module; astjax's compile refuses as JAX's)."""
    text = jax.jit(_by_platform(J)).trace(X3).lower(lowering_platforms=("cpu", "cuda")).as_text()
    ex = runtime.Executable(text, [ShapedArray((), np.int32), ShapedArray((3,), np.float32)],
                            [ShapedArray((3,), np.float32)])
    for index, name in enumerate(("dependent_cpu_value", "dependent_cuda_branch_value")):
        np.testing.assert_allclose(np.asarray(ex(np.int32(index), X3)[0]),
                                   RECORDED[name]["value"], rtol=1e-6)


def test_tokens_cross_the_jit_boundary_as_tokens():
    t, y = jax.jit(lambda tok, x: (lax.after_all(tok), x * 2))(lax.create_token(), X3)
    assert isinstance(t, Token)
    assert RECORDED["tok_call"]["items"][0] == {"token": True}
    np.testing.assert_array_equal(y, RECORDED["tok_call"]["items"][1]["value"])


def test_compiled_call_with_tokens():
    assert RECORDED["tok_compiled_call"]["message"] == ("'AbstractToken' object has no "
                                                        "attribute 'shape'")
    _compare("tok_compiled_call", RECORDED["tok_call"], _ours("tok_compiled_call"), 0)
