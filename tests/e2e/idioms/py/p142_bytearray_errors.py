meta = {"name": "bytearray-errors", "description": "bytearray misuse raises CPython's errors"}
cases = [
    lambda: hash(bytearray(b"x")),
    lambda: {bytearray(b"k"): 1},
    lambda: bytearray(b"a")[5],
    lambda: bytearray(b"a")["0"],
    lambda: bytearray(b"").pop(),
    lambda: bytearray(b"a").pop(3),
    lambda: bytearray(b"a").remove(98),
    lambda: bytearray(b"a").append(256),
    lambda: bytearray(b"a").append("b"),
    lambda: bytearray(b"a").extend(5),
    lambda: bytearray(b"a").extend("bc"),
    lambda: bytearray(b"a").extend([1, 300]),
    lambda: bytearray(b"a") + "b",
    lambda: bytearray(b"a") + [1],
    lambda: bytearray(b"a") * 1.5,
    lambda: bytearray(b"a") < 1,
    lambda: bytearray("text"),
    lambda: bytearray(-1),
    lambda: bytearray(2.5),
    lambda: bytearray([256]),
    lambda: json.dumps({"payload": bytearray(b"x")}),
    lambda: 1 in bytearray(b"a") and 300 in bytearray(b"a"),
]
def setter(kind):
    ba = bytearray(b"abcd")
    if kind == 0:
        ba[9] = 1
    elif kind == 1:
        ba[0] = 256
    elif kind == 2:
        ba[0] = "x"
    elif kind == 3:
        ba[0:2] = 5
    elif kind == 4:
        ba[::2] = b"xyz"
    elif kind == 5:
        del ba[7]
    elif kind == 6:
        ba[0:1] = "s"
    return ba
out = []
for f in cases + [lambda k=k: setter(k) for k in range(7)]:
    try:
        out.append(["ok", repr(f())])
    except Exception as e:
        out.append(["raised", repr(e)])
return out
