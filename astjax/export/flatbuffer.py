"""A minimal FlatBuffers writer and reader: what the byte format of a serialized
`Exported` (JAX's schema, `astjax/export/serialization.py`) needs, without the
`flatbuffers` package (neither JAX nor astjax depends on it at run time).

FlatBuffers' wire format: a buffer starts with the `u32` offset of its root table; a
table starts with an `i32` pointing back to its vtable (`u16` vtable size, `u16` table
size, then one `u16` offset per field slot, 0 for an absent field), followed by its
inline fields; a reference field holds the `u32` distance forward to a table, string
(`u32` length, bytes, NUL) or vector (`u32` length, elements). All values are
little-endian and aligned to their size.

The writer lays objects out front to back, each after the one that refers to it
(so every offset points forward, as the format requires): `Table({slot: value})`,
where a value is a `Scalar(fmt, v)`, a `str`, `bytes`, a `Table` or a `Vector`;
`Vector(items)` of tables and strings, `Vector(values, fmt)` of scalars.
"""
from __future__ import annotations

import struct
from collections import deque

__all__ = ["Scalar", "Table", "Vector", "build", "TableView"]


class Scalar:
    """An inline field: `struct` format (`'b'`, `'B'`, `'H'`, `'h'`, `'I'`, `'?'`)
    and value."""
    __slots__ = ("fmt", "value")

    def __init__(self, fmt: str, value):
        self.fmt, self.value = fmt, value


class Table:
    """A table to write: `{slot number: value}` (None values are left out)."""
    __slots__ = ("fields",)

    def __init__(self, fields: dict):
        self.fields = {k: v for k, v in fields.items() if v is not None}


class Vector:
    """A vector to write: of tables / strings / byte strings (`fmt` None), or of
    scalars of `struct` format `fmt`."""
    __slots__ = ("items", "fmt")

    def __init__(self, items, fmt: str | None = None):
        self.items, self.fmt = list(items), fmt


class _Writer:
    def __init__(self):
        self.buf = bytearray()
        self.pending: deque = deque()   # (position of a u32 offset, object it points to)

    def _align(self, n):
        self.buf.extend(b"\0" * (-len(self.buf) % n))

    def _ref(self, obj):
        self.pending.append((len(self.buf), obj))
        self.buf.extend(b"\0\0\0\0")

    def place(self, obj) -> int:
        if isinstance(obj, Table):
            return self._table(obj)
        self._align(4)
        pos = len(self.buf)
        if isinstance(obj, str):
            data = obj.encode("utf-8")
            self.buf += struct.pack("<I", len(data)) + data + b"\0"
        elif isinstance(obj, (bytes, bytearray)):
            self.buf += struct.pack("<I", len(obj)) + bytes(obj)
        elif obj.fmt is None:
            self.buf += struct.pack("<I", len(obj.items))
            for item in obj.items:
                self._ref(item)
        else:
            self.buf += struct.pack("<I", len(obj.items))
            self.buf += struct.pack(f"<{len(obj.items)}{obj.fmt}", *obj.items)
        return pos

    def _table(self, t: Table) -> int:
        layout, size = {}, 4            # slot -> offset inside the table (after the soffset)
        for slot, v in sorted(t.fields.items()):
            n = struct.calcsize(v.fmt) if isinstance(v, Scalar) else 4
            size += -size % n
            layout[slot] = size
            size += n
        nslots = max(t.fields, default=-1) + 1
        vtable = struct.pack(f"<HH{nslots}H", 4 + 2 * nslots, size,
                             *(layout.get(s, 0) for s in range(nslots)))
        self._align(2)
        vt_pos = len(self.buf)
        self.buf += vtable
        self._align(4)
        pos = len(self.buf)
        self.buf += struct.pack("<i", pos - vt_pos) + b"\0" * (size - 4)
        for slot, v in t.fields.items():
            at = pos + layout[slot]
            if isinstance(v, Scalar):
                struct.pack_into("<" + v.fmt, self.buf, at, v.value)
            else:
                self.pending.append((at, v))
        return pos


def build(root: Table) -> bytes:
    """The buffer holding `root` and everything it refers to."""
    w = _Writer()
    w.buf += b"\0\0\0\0"
    w.pending.append((0, root))
    while w.pending:
        at, obj = w.pending.popleft()
        struct.pack_into("<I", w.buf, at, w.place(obj) - at)
    return bytes(w.buf)


class TableView:
    """A table read from `buf` at `pos` (`TableView.root(buf)` for the root)."""
    __slots__ = ("buf", "pos", "vt", "vt_size")

    def __init__(self, buf: bytes, pos: int):
        self.buf, self.pos = buf, pos
        self.vt = pos - struct.unpack_from("<i", buf, pos)[0]
        self.vt_size = struct.unpack_from("<H", buf, self.vt)[0]

    @classmethod
    def root(cls, buf: bytes) -> TableView:
        return cls(buf, struct.unpack_from("<I", buf, 0)[0])

    def _field(self, slot):
        o = 4 + 2 * slot
        return struct.unpack_from("<H", self.buf, self.vt + o)[0] if o < self.vt_size else 0

    def _deref(self, at):
        return at + struct.unpack_from("<I", self.buf, at)[0]

    def scalar(self, slot: int, fmt: str, default=0):
        """An inline field (`default` when absent)."""
        o = self._field(slot)
        return struct.unpack_from("<" + fmt, self.buf, self.pos + o)[0] if o else default

    def has(self, slot: int) -> bool:
        return bool(self._field(slot))

    def table(self, slot: int) -> TableView | None:
        o = self._field(slot)
        return TableView(self.buf, self._deref(self.pos + o)) if o else None

    def _vector(self, slot):
        o = self._field(slot)
        if not o:
            return None, 0
        start = self._deref(self.pos + o)
        return start + 4, struct.unpack_from("<I", self.buf, start)[0]

    def bytes(self, slot: int) -> bytes | None:
        """A string or byte-vector field as bytes (None when absent)."""
        start, n = self._vector(slot)
        return None if start is None else bytes(self.buf[start:start + n])

    def string(self, slot: int) -> str | None:
        b = self.bytes(slot)
        return None if b is None else b.decode("utf-8")

    def scalars(self, slot: int, fmt: str) -> list:
        start, n = self._vector(slot)
        return [] if start is None else list(struct.unpack_from(f"<{n}{fmt}", self.buf, start))

    def tables(self, slot: int) -> list[TableView]:
        start, n = self._vector(slot)
        return [TableView(self.buf, self._deref(start + 4 * i)) for i in range(n)]

    def strings(self, slot: int) -> list[str]:
        start, n = self._vector(slot)
        out = []
        for i in range(n):
            s = self._deref(start + 4 * i)
            size = struct.unpack_from("<I", self.buf, s)[0]
            out.append(bytes(self.buf[s + 4:s + 4 + size]).decode("utf-8"))
        return out
