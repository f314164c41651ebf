"""`astjax.tree_util` behaves as `jax.tree_util`: containers, None as an empty
subtree, namedtuples, registered classes and dataclasses, several trees with
`is_leaf`, prefix trees, structure errors, paths, and pytrees through `jit`."""
import collections
import dataclasses

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import tree_util as tu

Point = collections.namedtuple("Point", "x y")


@tu.register_pytree_node_class
class Box:
    def __init__(self, value, label):
        self.value, self.label = value, label

    def tree_flatten(self):
        return (self.value,), self.label

    @classmethod
    def tree_unflatten(cls, label, children):
        return cls(children[0], label)


@dataclasses.dataclass
class Params:
    w: object
    b: object
    name: str = dataclasses.field(default="p", metadata=dict(static=True))


tu.register_dataclass(Params)


def test_flatten_order_and_none():
    tree = {"b": [1, (2, None)], "a": Point(3, 4), "c": None}
    leaves, td = tu.tree_flatten(tree)
    assert leaves == [3, 4, 1, 2]
    assert td.num_leaves == 4
    assert tu.tree_unflatten(td, leaves) == tree
    assert repr(td) == ("PyTreeDef({'a': CustomNode(namedtuple[Point], [*, *]), "
                        "'b': [*, (*, None)], 'c': None})")
    assert tu.tree_leaves([None, [None]]) == []
    assert tu.tree_structure(None) == tu.tree_structure(None)


def test_containers():
    od = collections.OrderedDict([("z", 1), ("a", 2)])
    assert tu.tree_leaves(od) == [1, 2]
    dd = collections.defaultdict(list, {"b": 1, "a": 2})
    out = tu.tree_map(lambda x: x * 10, dd)
    assert isinstance(out, collections.defaultdict) and out == {"a": 20, "b": 10}


def test_tree_map_several_trees_and_is_leaf():
    a = {"x": (1, 2), "y": [3]}
    b = {"x": (10, 20), "y": [30]}
    assert tu.tree_map(lambda u, v: u + v, a, b) == {"x": (11, 22), "y": [33]}
    # prefix: the second tree's subtrees sit at the first tree's leaves
    assert tu.tree_map(lambda u, v: (u, v), (1, 2), ([5, 6], {"k": 7})) == \
        ((1, [5, 6]), (2, {"k": 7}))
    pairs = [(1, 2), (3, 4)]
    assert tu.tree_map(lambda p: p[0] * p[1], pairs,
                       is_leaf=lambda n: isinstance(n, tuple)) == [2, 12]
    assert astjax.tree.map(lambda x: x + 1, [1, 2]) == [2, 3]
    assert not hasattr(tu, "tree")   # (JAX's tree_util has no `tree`: `jax.tree` is a module)


@pytest.mark.parametrize("a,b,msg", [
    ((1, 2), [1, 2], "expected tuple"),
    ((1, 2), (1, 2, 3), "arity"),
    ({"a": 1}, {"b": 1}, "key"),
    ([None], [1], "expected NoneType"),
])
def test_mismatched_structures(a, b, msg):
    with pytest.raises(ValueError, match=msg):
        tu.tree_map(lambda x, y: x, a, b)


def test_unflatten_wrong_count():
    td = tu.tree_structure((1, 2))
    with pytest.raises(ValueError, match="Too few leaves"):
        tu.tree_unflatten(td, [1])


def test_registered_class_and_dataclass():
    b = tu.tree_map(lambda v: v + 1, Box(1, "lbl"))
    assert b.value == 2 and b.label == "lbl"
    p = Params(w=1.0, b=2.0, name="layer")
    leaves, td = tu.tree_flatten(p)
    assert leaves == [1.0, 2.0]
    q = tu.tree_unflatten(td, [3.0, 4.0])
    assert q == Params(3.0, 4.0, "layer")
    assert tu.tree_structure(Params(1, 2, "a")) != tu.tree_structure(Params(1, 2, "b"))
    with pytest.raises(ValueError, match="Duplicate"):
        tu.register_pytree_node(Box, lambda b: ((), None), lambda a, c: None)


def test_register_pytree_node_function():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b
    tu.register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda _, c: Pair(*c))
    out = tu.tree_map(lambda x: -x, Pair(1, 2))
    assert (out.a, out.b) == (-1, -2)


def test_paths_reduce_transpose():
    tree = {"a": [1, Point(2, 3)]}
    paths = [tu.keystr(p) for p, _ in tu.tree_flatten_with_path(tree)[0]]
    assert paths == ["['a'][0]", "['a'][1].x", "['a'][1].y"]
    assert tu.tree_map_with_path(lambda p, x: len(p), tree) == {"a": [2, Point(3, 3)]}
    assert tu.tree_reduce(lambda a, b: a + b, tree) == 6
    assert tu.tree_reduce(lambda a, b: a + b, tree, 10) == 16
    assert tu.tree_all([True, (1, None)])
    t = tu.tree_transpose(tu.tree_structure([0, 0]), tu.tree_structure((0, 0)),
                          [(1, 2), (3, 4)])
    assert t == ([1, 3], [2, 4])


def test_pytrees_through_jit():
    @astjax.jit
    def step(params, batch):
        return tu.tree_map(lambda p: p - 0.1 * jnp.sum(batch["x"]), params)
    params = Params(w=np.ones(2, np.float32), b=np.zeros(1, np.float32), name="lin")
    out = step(params, {"x": np.ones(3, np.float32), "unused": None})
    assert isinstance(out, Params) and out.name == "lin"
    np.testing.assert_allclose(np.asarray(out.w), 0.7)
    f = astjax.jit(lambda pt: Point(pt.y, pt.x))
    r = f(Point(np.float32(1), np.float32(2)))
    assert isinstance(r, Point) and float(r.x) == 2.0
    part = tu.Partial(lambda x, y: x * y, np.float32(3))
    assert float(astjax.jit(lambda p: p(2.0))(part)) == 6.0
