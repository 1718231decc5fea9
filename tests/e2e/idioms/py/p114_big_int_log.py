meta = {"name": "big_int_log", "description": "math.log, log2 and log10 of ints beyond the float range, as CPython computes them; math.isqrt of big ints"}
out = {}
out["ln"] = math.log(10 ** 400)
out["l2"] = math.log2(2 ** 1100)
out["l10"] = math.log10(10 ** 400)
out["base10"] = math.log(10 ** 400, 10)
out["bigbase"] = math.log(2 ** 2000 + 1, 2 ** 1500)
out["l10_7"] = math.log10(7 ** 1000)
out["digits"] = [int(math.log10(n)) + 1 for n in [3 ** 700, 10 ** 308, 10 ** 309 - 1, 2 ** 1024]]
out["near"] = [math.log2(2 ** 1024 - 1), math.log2(2 ** 1024 + 1), math.log(2 ** 1030 + 2 ** 977)]
out["small"] = [math.log(2 ** 70), math.log(8, 2), math.log2(1), math.log10(0.001)]
out["isqrt"] = [math.isqrt(10 ** 20 + 5), math.isqrt(2 ** 200), math.isqrt(10 ** 40 - 1), math.isqrt(99)]
errs = []
for f in [lambda: math.isqrt(-(10 ** 30)), lambda: math.log(10, 1), lambda: math.log(-(10 ** 400)), lambda: math.log2(0), lambda: math.log(5, -(2 ** 100)), lambda: math.log10(-1.5)]:
    try:
        errs.append(f())
    except (ValueError, ZeroDivisionError) as e:
        errs.append(str(e))
out["errs"] = errs
return out
