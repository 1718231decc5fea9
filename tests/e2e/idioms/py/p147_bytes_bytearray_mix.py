meta = {"name": "bytes-bytearray-mix", "description": "bytes methods and operators take a bytearray wherever bytes would do"}
ba = bytearray(b"b,c")
raw = b"a,b,c,d"
mixed = {
    "find": [raw.find(ba), raw.count(bytearray(b",")), raw.index(bytearray(b"d")), bytearray(b"b") in raw, ba in raw],
    "split": raw.split(bytearray(b",")),
    "join": [b"-".join([b"x", bytearray(b"y")]), bytearray(b"+").join([bytearray(b"p"), b"q"])],
    "starts": [raw.startswith(bytearray(b"a,")), raw.endswith((bytearray(b"x"), b"d"))],
    "strip": [raw.strip(bytearray(b"ad")), raw.replace(bytearray(b","), bytearray(b";"))],
    "concat": [raw + ba, ba + raw, b"".join([ba, ba])],
    "sorted": [repr(x) for x in sorted([bytearray(b"b"), b"a", bytearray(b"c"), b"bb"])],
    "minmax": [repr(min(bytearray(b"z"), b"y")), repr(max([b"k", bytearray(b"m")]))],
    "eq_in_list": [b"b,c" in [ba], ba in [b"b,c"], [ba].count(b"b,c"), [b"x", b"b,c"].index(ba)],
    "decode": [str(ba, "ascii"), bytes(ba).decode(), ba.decode("ascii").split(",")],
}
counts = {}
for chunk in bytearray(b"aabca"):
    counts[chr(chunk)] = counts.get(chr(chunk), 0) + 1
checksum = 0
for i, byte in enumerate(bytearray("payload ✓", "utf-8")):
    checksum = (checksum * 31 + byte + i) % 65521
frame = bytearray()
for part in [b"HDR", "body".encode(), bytes([0, 255])]:
    frame += len(part).to_bytes(2, "big")
    frame += part
return {k: [repr(v) if isinstance(v, (bytes, bytearray, list)) else v for v in (vals if isinstance(vals, list) else [vals])] for k, vals in mixed.items()} | {
    "counts": counts, "checksum": checksum, "frame": frame.hex(), "frame_len": len(frame), "frame_head": list(frame[:5])}
