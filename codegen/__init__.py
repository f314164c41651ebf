"""IR -> StableHLO text, IR -> Python source, and the XLA runtime (jaxlib)."""
