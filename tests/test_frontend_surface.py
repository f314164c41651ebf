"""The `ag__` surface: every `ag__.<name>` the converter emits is defined in
`astjax.frontend.operators` (explicitly: the module has no `__getattr__`)."""
import pathlib
import re

from astjax.frontend import operators


def test_every_emitted_ag_name_is_defined():
    src = pathlib.Path(operators.__file__).parent
    emitted = set()
    for f in src.rglob("*.py"):
        text = f.read_text()
        emitted |= set(re.findall(r"ag__\.([A-Za-z_]\w*)", text))
        emitted |= set(re.findall(r"ag_attr\(\"(\w+)\"", text))
    assert {"call", "name", "if_stmt", "for_stmt", "while_stmt"} <= emitted
    assert not hasattr(operators, "__getattr__")
    assert sorted(emitted - set(operators.__all__)) == []
    assert all(callable(getattr(operators, n)) for n in operators.__all__)
