"""Strict reader of the heap dumps in a binary profile: each HEAP DUMP
SEGMENT is parsed on its own (a sub-record that straddles two segments
fails), segments up to a HEAP DUMP END form one dump, and every dump is
cross-checked: instances match their class's declared fields, every class
dump has a LOAD CLASS, every cited trace was written, no ID repeats."""
import struct

SEGMENT, END = 0x1C, 0x2C
BASIC_SIZE = {2: 8, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}
ROOT_SIZES = {0xFF: 8, 0x01: 16, 0x02: 16, 0x03: 16, 0x04: 12, 0x05: 8, 0x06: 12,
              0x07: 8, 0x08: 16}


class Dump:
    def __init__(self):
        self.roots = []        # (tag, id)
        self.classes = {}      # id -> dict
        self.instances = {}    # id -> (class id, trace, bytes)
        self.obj_arrays = {}   # id -> (class id, trace, [ids])
        self.prim_arrays = {}  # id -> (type, trace, n, bytes)
        self.segments = 0


def _parse_segment(d, b):
    u4 = lambda o: struct.unpack_from(">I", b, o)[0]
    u8 = lambda o: struct.unpack_from(">Q", b, o)[0]
    pos = 0
    while pos < len(b):
        tag = b[pos]
        pos += 1
        if tag in ROOT_SIZES:
            d.roots.append((tag, u8(pos)))
            pos += ROOT_SIZES[tag]
        elif tag == 0x20:
            cid, trace, sup, loader, signers, domain = (
                u8(pos), u4(pos + 8), u8(pos + 12), u8(pos + 20), u8(pos + 28), u8(pos + 36))
            pos += 12 + 5 * 8 + 8  # through the two reserved IDs
            inst_size = u4(pos)
            pos += 4
            n_cp = struct.unpack_from(">H", b, pos)[0]
            pos += 2
            cp = []
            for _ in range(n_cp):
                idx, t = struct.unpack_from(">HB", b, pos)
                cp.append((idx, u8(pos + 3)))
                pos += 3 + BASIC_SIZE[t]
            n_st = struct.unpack_from(">H", b, pos)[0]
            pos += 2
            statics = []
            for _ in range(n_st):
                name, t = u8(pos), b[pos + 8]
                size = BASIC_SIZE[t]
                statics.append((name, t, b[pos + 9:pos + 9 + size]))
                pos += 9 + size
            n_f = struct.unpack_from(">H", b, pos)[0]
            pos += 2
            fields = []
            for _ in range(n_f):
                fields.append((u8(pos), b[pos + 8]))
                pos += 9
            if cid in d.classes:
                raise AssertionError(f"CLASS DUMP {cid:#x} twice in one dump")
            d.classes[cid] = dict(super=sup, loader=loader, signers=signers, domain=domain,
                                  size=inst_size, cp=cp, statics=statics, fields=fields,
                                  trace=trace)
        elif tag == 0x21:
            oid, trace, cid, n = u8(pos), u4(pos + 8), u8(pos + 12), u4(pos + 20)
            d.instances[oid] = (cid, trace, b[pos + 24:pos + 24 + n])
            pos += 24 + n
        elif tag == 0x22:
            oid, trace, n, cid = u8(pos), u4(pos + 8), u4(pos + 12), u8(pos + 16)
            elems = list(struct.unpack_from(f">{n}Q", b, pos + 24))
            d.obj_arrays[oid] = (cid, trace, elems)
            pos += 24 + 8 * n
        elif tag == 0x23:
            oid, trace, n, t = u8(pos), u4(pos + 8), u4(pos + 12), b[pos + 16]
            size = n * BASIC_SIZE[t]
            d.prim_arrays[oid] = (t, trace, n, b[pos + 17:pos + 17 + size])
            pos += 17 + size
        else:
            raise AssertionError(f"unknown heap sub-record tag {tag:#x}")
        if pos > len(b):
            raise AssertionError(f"sub-record {tag:#x} runs past its segment")


def dumps(profile):
    """The heap dumps of a hproftest.BinaryProfile, checked."""
    out, cur = [], None
    for tag, _, body in profile.records:
        if tag == SEGMENT:
            cur = cur or Dump()
            cur.segments += 1
            _parse_segment(cur, body)
        elif tag == END:
            if cur is None or body:
                raise AssertionError("HEAP DUMP END without segments, or not empty")
            out.append(cur)
            cur = None
        elif tag == 0x0C:
            raise AssertionError("HEAP DUMP record: this agent writes segments")
    if cur is not None:
        raise AssertionError("heap dump segments without HEAP DUMP END")
    for d in out:
        _check(profile, d)
    return out


def field_bytes(d, cid):
    total = 0
    while cid:
        c = d.classes[cid]
        total += sum(BASIC_SIZE[t] for _, t in c["fields"])
        cid = c["super"]
    return total


def _check(profile, d):
    loaded = {obj for obj, _, _ in profile.classes.values()}
    ids = set()
    for table in (d.instances, d.obj_arrays, d.prim_arrays, d.classes):
        if ids & table.keys():
            raise AssertionError("an object ID is dumped twice")
        ids |= table.keys()
    for cid, c in d.classes.items():
        if cid not in loaded:
            raise AssertionError(f"CLASS DUMP {cid:#x} has no LOAD CLASS")
        if c["super"] and c["super"] not in d.classes:
            raise AssertionError(f"CLASS DUMP {cid:#x}: superclass without class dump")
        for name, _, _ in c["statics"]:
            if name not in profile.strings:
                raise AssertionError("static field name without UTF8")
        for name, _ in c["fields"]:
            if name not in profile.strings:
                raise AssertionError("field name without UTF8")
    for oid, (cid, trace, data) in d.instances.items():
        if cid not in d.classes:
            raise AssertionError(f"instance {oid:#x} of a class without class dump")
        if len(data) != field_bytes(d, cid) or len(data) != d.classes[cid]["size"]:
            raise AssertionError(f"instance {oid:#x}: {len(data)} value bytes")
    for oid, (cid, _, _) in d.obj_arrays.items():
        if cid not in d.classes:
            raise AssertionError(f"array {oid:#x} of a class without class dump")
    traces = [t for _, t, _ in d.instances.values()] + [t for _, t, _ in d.obj_arrays.values()]
    traces += [t for _, t, _, _ in d.prim_arrays.values()]
    for t in set(traces):
        if t not in profile.traces:
            raise AssertionError(f"trace {t} cited but never written")


def instance_fields(profile, d, oid):
    """{field name: raw bytes} of an instance, own fields and inherited."""
    cid, _, data = d.instances[oid]
    out, pos = {}, 0
    while cid:
        for name, t in d.classes[cid]["fields"]:
            size = BASIC_SIZE[t]
            out.setdefault(profile.strings[name], data[pos:pos + size])
            pos += size
        cid = d.classes[cid]["super"]
    return out


def class_named(profile, d, name):
    for obj, cname, _ in profile.classes.values():
        if cname == name and obj in d.classes:
            return obj
    raise AssertionError(f"no class dump for {name}")
