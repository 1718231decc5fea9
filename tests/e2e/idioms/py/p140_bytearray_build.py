meta = {"name": "bytearray-build", "description": "bytearray constructors, item and slice writes, in-place growth"}
forms = [bytearray(), bytearray(3), bytearray(b"abc"), bytearray(bytearray(b"xy")), bytearray([104, 105]), bytearray(range(65, 70, 2)), bytearray("héllo", "utf-8"), bytearray("abc", encoding="ascii")]
buf = bytearray(b"header:")
buf.extend(b"body")
buf.extend([0x21, 0x3f])
buf.extend(bytearray(b"<>"))
buf.append(33)
buf[0] = ord("H")
buf[-1] = 35
buf += b"!!"
buf += bytearray(b"..")
alias = buf
buf += b"~"
del buf[1:3]
del buf[-1]
steps = [bytes(buf), len(buf), alias is buf, buf[0], buf[-2], buf[2:5], buf[::3], buf[::-1][:4]]
x = bytearray(b"abcdef")
x[1:3] = b"XYZ"
x[0:0] = [48, 49]
x[-2:] = bytearray(b"")
x[::2] = bytes(len(x[::2]))
x.insert(0, 65)
x.insert(-1, 66)
x.insert(100, 67)
x.insert(-100, 68)
popped = [x.pop(), x.pop(0), x.pop(-2)]
x.remove(0)
y = x.copy()
y.reverse()
z = bytearray(b"zz")
z.clear()
grown = bytearray(b"ab") + b"cd" + bytearray(b"ef")
left = b"<" + bytearray(b"mid")
rep = [bytearray(b"ab") * 3, 2 * bytearray(b"-"), bytearray(b"x") * 0]
return {
    "forms": [repr(f) for f in forms],
    "steps": [repr(s) for s in steps],
    "x": repr(x), "y": repr(y), "z": repr(z), "popped": popped,
    "grown": [repr(grown), isinstance(grown, bytearray), repr(left), isinstance(left, bytearray), isinstance(left, bytes)],
    "rep": [repr(r) for r in rep],
    "contains": [98 in bytearray(b"abc"), b"bc" in bytearray(b"abc"), bytearray(b"ca") in b"abc", 0 in bytearray(3)],
}
