meta = {"name": "bytearray-bytes-methods", "description": "bytearray reuses the bytes read-only methods, returning bytearrays where bytes would"}
ba = bytearray(b"  Alpha,beta,,Gamma  ")
calls = {
    "strip": ba.strip(), "lstrip": ba.lstrip(), "rstrip": ba.rstrip(b" a"),
    "upper": ba.upper(), "lower": ba.lower(), "swapcase": ba.swapcase(), "title": bytearray(b"ab cd").title(),
    "split": ba.strip().split(b","), "rsplit": ba.strip().rsplit(b",", 1), "split_ws": bytearray(b" a  b ").split(),
    "splitlines": bytearray(b"a\nb\r\nc").splitlines(), "partition": ba.partition(b","), "rpartition": ba.rpartition(b"x"),
    "replace": ba.replace(b"a", b"A"), "join": bytearray(b"-").join([b"x", bytearray(b"y")]),
    "center": bytearray(b"ab").center(6, b"*"), "zfill": bytearray(b"42").zfill(5),
    "removeprefix": bytearray(b"prefix-body").removeprefix(b"prefix-"),
}
reads = {
    "find": [ba.find(b"beta"), ba.rfind(b"a"), ba.index(b","), ba.count(b","), ba.find(bytearray(b"Gam"))],
    "starts": [ba.startswith(b"  A"), ba.endswith((b"x", b"  ")), bytearray(b"abc").startswith(bytearray(b"ab"))],
    "preds": [bytearray(b"abc").isalpha(), bytearray(b"123").isdigit(), bytearray(b"").isspace(), bytearray(b"Ab").istitle()],
    "decode": [bytearray("héllo", "utf-8").decode(), bytearray(b"ok\xffok").decode("utf-8", errors="replace"), str(bytearray(b"caf\xe9"), "latin-1")],
    "hex": [bytearray(b"\x01\xab").hex(), bytearray(b"\x01\x02\x03").hex(":"), bytearray.fromhex("de ad").hex()],
    "cmp": [bytearray(b"abc") == b"abc", b"abc" == bytearray(b"abc"), bytearray(b"a") != b"a", bytearray(b"abc") < b"abd",
            b"b" > bytearray(b"a"), bytearray(b"ab") <= bytearray(b"ab"), bytearray(b"1") == "1", bytearray(b"\x01") == 1],
    "conv": [bytes(bytearray(b"q")), list(bytearray(b"AZ")), [b for b in bytearray(b"hi")], tuple(reversed(bytearray(b"ab"))),
             bool(bytearray()), bool(bytearray(1)), len(bytearray(5)), isinstance(ba, bytearray), isinstance(ba, bytes),
             isinstance(ba, (bytes, bytearray)), int(bytearray(b"42")), sorted(bytearray(b"cab"))],
}
def kind(v):
    for t, name in [(bytearray, "bytearray"), (bytes, "bytes"), (list, "list"), (tuple, "tuple")]:
        if isinstance(v, t):
            return name
    return "other"
out = {k: [kind(v), repr(v)] for k, v in calls.items()}
return {"calls": out, "reads": {k: repr(v) for k, v in reads.items()}}
