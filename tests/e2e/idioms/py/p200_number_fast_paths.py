meta = {"name": "number_fast_paths", "description": "int and float arithmetic at the edges the interpreter's fast paths must hand on: overflow into long ints, floor division and modulo signs, true division of ints past 2**53, float floor division and divmod as CPython, list and tuple indexes in and out of range, dict items and pairs unpacked in loops"}
out = []
big = 9223372036854775807
out.append([big + 1, -big - 2, big * 2, (-big - 1) // -1, (-big - 1) % -1, -big - 1 - 1])
out.append([-7 // 2, 7 // -2, -7 // -2, 7 // 2, -7 % 2, 7 % -2, -7 % -2, 7 % 2, 0 % 5, -6 % 3])
out.append([1 / 3, -1 / 3, 2 ** 53 / 3, (2 ** 53 + 1) / 3, -9007199254740993 / 7, 2 ** 62 / 3, 10 / 5, 7 / -2])
out.append([1 // 0.1, 0.3 // 0.1, 5.5 // -2, -0.0 // 1, 7 // 2.0, repr(1e300 // 1e-10), -7.5 // 2, 7 // -0.5, True // 0.3, 2.5 // True])
out.append([divmod(1, 0.1), divmod(-1, 0.1), divmod(5.5, -2), divmod(-0.0, 1.0), divmod(0.0, -1.0), divmod(7, 2.5), divmod(7.5, 2)])
nan = float("nan")
out.append([nan < 1.0, nan == nan, nan != nan, 1.5 < 2.5, 2.5 >= 2.5, 0.1 + 0.2, repr(1e308 * 10), -0.0 - 0.0, True + 1, 1 == 1.0, 2 < 2.5, 1 != True])
xs = [10, 20, 30]
t = (1, 2, 3)
out.append([xs[0], xs[-1], xs[-3], t[1], t[-1], [[1, 2]][0][1]])
for f in [lambda: xs[3], lambda: t[-4], lambda: 1 // 0, lambda: 1 % 0, lambda: 1 / 0, lambda: 1.0 / 0.0, lambda: 2 ** 63 // 0, lambda: 1.5 // 0.0, lambda: 2 ** 70 % 0, lambda: 2 ** 70 // 0, lambda: 2 ** 70 / 0, lambda: 2 ** 70 / 0.0, lambda: 2 ** 70 % 0.0, lambda: 2 ** 70 // 0.0, lambda: divmod(2 ** 70, 0), lambda: 1.5 % 0, lambda: 2 ** 70 % False, lambda: 5 % (2 ** 70 * 0)]:
    try:
        out.append(f())
    except IndexError as e:
        out.append("IndexError: " + str(e))
    except ZeroDivisionError as e:
        out.append("ZeroDivisionError: " + str(e))
n = 5
n += 2
n -= 10
f = 1.5
f += 2
m = big
m += 1
out.append([n, f, m])
d = {"a": 1, "b": 2}
for k, v in d.items():
    out.append([k, v])
for i, c in enumerate("ab"):
    out.append([i, c])
for a, b in [(1, 2), [3, 4], (5, 6)]:
    out.append(a * b)
try:
    for a, b in [(1, 2), (3, 4, 5)]:
        pass
except ValueError as e:
    out.append(str(e))
try:
    for k, v in d.items():
        d["c"] = 3
except RuntimeError as e:
    out.append(str(e))
out.append([p for p, q in zip("xy", "zw")])
out.append({k: v for k, v in [("x", 1), ("y", 2)]})
return out
