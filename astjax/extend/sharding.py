"""`astjax.extend.sharding` (`jax.extend.sharding`): XLA's own sharding objects for
libraries that read or write them -- `GSPMDSharding` (a layout given by an XLA
`HloSharding` over a list of devices: jaxlib's class, the one JAX exports) and the
helpers that turn XLA's serialized `OpSharding` protos into `HloSharding`s and back.
`xla_client` is jaxlib's module these types come from."""
from jaxlib import xla_client

GSPMDSharding = xla_client.GSPMDSharding

__all__ = ["GSPMDSharding", "xla_client", "get_op_sharding_from_serialized_proto",
           "get_hlo_sharding_from_serialized_proto", "get_serialized_proto_from_hlo_sharding"]


def get_op_sharding_from_serialized_proto(sharding: bytes):
    """The `xla_client.OpSharding` whose serialized proto is `sharding`."""
    proto = xla_client.OpSharding()
    proto.ParseFromString(sharding)
    return proto


def get_hlo_sharding_from_serialized_proto(sharding: bytes):
    """The `xla_client.HloSharding` of the serialized `OpSharding` proto `sharding`."""
    return xla_client.HloSharding.from_proto(get_op_sharding_from_serialized_proto(sharding))


def get_serialized_proto_from_hlo_sharding(sharding) -> bytes:
    """`sharding` (an `xla_client.HloSharding`) as a serialized `OpSharding` proto."""
    return sharding.to_proto().SerializeToString()
