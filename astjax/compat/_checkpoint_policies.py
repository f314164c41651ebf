"""The remat policies `jax.checkpoint_policies` names (`everything_saveable`,
`dots_with_no_batch_dims_saveable`, `save_only_these_names`, ...), gathered in one
namespace. JAX 0.10.2 keeps the policy functions out of `jax.ad_checkpoint`'s names, so
they live here and `astjax.compat.ad_checkpoint` exports only the namespace.

A policy is called per equation of a checkpointed function as JAX calls it,
`policy(prim, *avals, **params)`, and answers whether the equation's outputs may be
saved (transforms/remat.py applies it)."""
from __future__ import annotations

import dataclasses
import types

from astjax.errors import ArgumentValueError
from astjax.primitives.custom_derivatives import name_p
from astjax.transforms.remat import Offloadable, Recompute, Saveable

__all__ = ["checkpoint_policies"]


def _is_dot(prim) -> bool:
    return getattr(prim, "name", None) == "dot_general"


def _no_batch_dims(params) -> bool:
    (_, _), (lhs_batch, rhs_batch) = params["dimension_numbers"]
    return not lhs_batch and not rhs_batch


def _name_of(prim, params) -> str | None:
    return params.get("name") if prim is name_p else None


def everything_saveable(*_, **__) -> bool:
    """Save every value (reverse mode without `checkpoint`)."""
    return True


def nothing_saveable(*_, **__) -> bool:
    """Save nothing: recompute every intermediate (`checkpoint`'s default)."""
    return False


@dataclasses.dataclass(frozen=True)
class DotsSaveable:
    """Save the outputs of matrix products (`dot_general`, convolutions); with
    `only_if_no_batch_dims`, only those of `dot_general`s without batch dimensions."""
    only_if_no_batch_dims: bool

    def __call__(self, prim, *avals, **params):
        name = getattr(prim, "name", None)
        if self.only_if_no_batch_dims:
            if name == "scaled_matmul_wrapper":
                return avals[0].shape[0] == 1
            return _is_dot(prim) and _no_batch_dims(params)
        return name in ("dot_general", "conv_general_dilated", "scaled_matmul_wrapper")


dots_saveable = DotsSaveable(False)
dots_with_no_batch_dims_saveable = DotsSaveable(True)


def offload_dot_with_no_batch_dims(offload_src, offload_dst):
    """As `dots_with_no_batch_dims_saveable`, answering `Offloadable(src, dst)` for the
    values to keep (astjax keeps them where they are)."""
    def policy(prim, *_, **params):
        if _is_dot(prim) and _no_batch_dims(params):
            return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


def save_anything_except_these_names(*names_not_to_save):
    """Save every value. (jax 0.10.2's policy of this name ignores `names_not_to_save`:
    astjax answers as it does.)"""
    del names_not_to_save
    return everything_saveable


@dataclasses.dataclass(frozen=True)
class SaveOnlyTheseNames:
    """Save only the values named (by `checkpoint_name`) with one of `saveable_names`."""
    saveable_names: frozenset

    def __call__(self, prim, *_, **params):
        return _name_of(prim, params) in self.saveable_names


@dataclasses.dataclass(frozen=True)
class SaveAnyNamesButThese:
    """Save only named values, except those named with one of `names`."""
    names: frozenset

    def __call__(self, prim, *_, **params):
        name = _name_of(prim, params)
        return name is not None and name not in self.names


def save_only_these_names(*names_which_can_be_saved):
    """Save only the values named (by `checkpoint_name`) with one of the given names."""
    return SaveOnlyTheseNames(frozenset(names_which_can_be_saved))


def save_any_names_but_these(*names_not_to_save):
    """Save only the named values, except those with one of the given names."""
    return SaveAnyNamesButThese(frozenset(names_not_to_save))


def save_and_offload_only_these_names(*, names_which_can_be_saved,
                                      names_which_can_be_offloaded, offload_src,
                                      offload_dst):
    """As `save_only_these_names`, answering `Offloadable(offload_src, offload_dst)` for
    the names in `names_which_can_be_offloaded` (the two lists must not overlap)."""
    saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
    if saved & offloaded:
        raise ArgumentValueError(
            "`names_which_can_be_saved` and `names_which_can_be_offloaded` must not "
            f"share a name; both hold {sorted(saved & offloaded)}",
            hint="list each name in one of the two only")

    def policy(prim, *_, **params):
        name = _name_of(prim, params)
        if name in saved:
            return Saveable
        if name in offloaded:
            return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute
    return policy


def save_from_both_policies(policy_1, policy_2):
    """Save a value when either policy saves it (both must answer bools)."""
    def policy(prim, *args, **params):
        a, b = policy_1(prim, *args, **params), policy_2(prim, *args, **params)
        if not (isinstance(a, bool) and isinstance(b, bool)):
            raise ArgumentValueError(
                f"save_from_both_policies needs policies answering bools; they answered "
                f"{a!r} and {b!r}",
                hint="write the combined policy as one function returning "
                     "Saveable / Recompute / Offloadable")
        return a or b
    return policy


class _Policies(types.SimpleNamespace):
    """The remat policies by name (`jax.checkpoint_policies`): each decides which
    values a `checkpoint` may save for the backward pass."""

    def __repr__(self):
        return f"checkpoint_policies({', '.join(sorted(vars(self)))})"


checkpoint_policies = _Policies(
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=dots_saveable,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=dots_with_no_batch_dims_saveable,
    offload_dot_with_no_batch_dims=offload_dot_with_no_batch_dims,
    save_anything_except_these_names=save_anything_except_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_only_these_names=save_only_these_names,
    save_from_both_policies=save_from_both_policies,
    save_and_offload_only_these_names=save_and_offload_only_these_names,
)
