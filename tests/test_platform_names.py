"""Platform names JAX does not know, as JAX 0.10.2 takes them
(tests/oracle/record_platform_names.py -> platform_names.json): any name, verbatim, in
`lax.platform_dependent`, `lower(lowering_platforms=)` and `export(platforms=)`; the
branch a lowering picks (seen by running the compiled module), JAX's error classes and
messages where a name has no branch or an export is called on another platform; and
the module's name as JAX prints it (sanitized, quoted when not an MLIR identifier) in
one-platform, multi-platform and exported modules."""
import builtins
import json
import sys
from pathlib import Path

import pytest

import astjax as jax
from astjax import export, lax
from astjax.errors import AstjaxError

sys.path.insert(0, str(Path(__file__).with_name("oracle")))
import record_platform_names as rec  # noqa: E402

ORACLE = json.loads(Path(rec.__file__).with_name("platform_names.json").read_text())
CASES = rec.cases(jax, lax, export)
# known remaining differences: name -> reason (strict xfails)
XFAIL: dict = {}


def test_every_case_is_recorded():
    assert sorted(CASES) == sorted(ORACLE)


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(
    reason=XFAIL[n], strict=True)) if n in XFAIL else n for n in sorted(CASES)])
def test_platform_name_case_as_jax(name):
    want = ORACLE[name]
    if "value" in want:
        got = CASES[name]()
        assert got == want["value"]
        return
    with pytest.raises(getattr(builtins, want["error"])) as info:
        CASES[name]()
    err = info.value
    message = err.message if isinstance(err, AstjaxError) else str(err)
    assert message == want["message"]


def test_eager_missing_branch_is_located():
    with pytest.raises(AstjaxError) as info:
        rec.functions(lax)["foo_only"](rec.X)
    assert isinstance(info.value, NotImplementedError)
    assert "record_platform_names.py" in str(info.value).splitlines()[0]


def test_multi_platform_module_names_each_platform_function():
    text = jax.jit(rec.functions(lax)["three_way"]).trace(rec.X).lower(
        lowering_platforms=("cpu", "tpu2")).as_text()
    assert "@_platform_cpu" in text and "@_platform_tpu2" in text
