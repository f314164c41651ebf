"""Static analyses over the gast AST, one per module, each with `resolve(node, ctx)`
(AutoGraph's pyct): activity (names read/modified), reaching definitions (names
defined on every / some path), liveness (names live after a statement). They work
on structured code: break/continue/return were canonicalized away first."""
