meta = {"name": "int_float_edges", "description": "integer and float corner cases a script meets when it counts and averages"}

ints = {
    "floordiv": [-7 // 2, 7 // -2, -7 // -2, 7 // 2, -1 // 10],
    "mod": [-7 % 2, 7 % -2, -7 % -2, -1 % 10, 10 % 3],
    "divmod": [list(divmod(-7, 2)), list(divmod(7, -2)), list(divmod(17, 5))],
    "fdivmod": [list(divmod(7.5, 2)), list(divmod(-7.5, 2))],
    "fmod": [-7.5 % 2, 7.5 % -2, 5.0 // 2, -5.0 // 2],
    "pow": [pow(2, 10), pow(2, 100, 1000), pow(3, -1, 7), pow(2, -2), 2 ** -1, (-8) ** 2, -2 ** 2],
    "big": [2 ** 100, 10 ** 20 // 3, str(2 ** 64), -(2 ** 70) // 3, (2 ** 65) % 1000, 12345678901234567890 * 98765432109876543210],
    "bigstr": [len(str(3 ** 200)), str(3 ** 50)[:10], int("9" * 30) + 1],
    "conv": [int(" 42 "), int("-0017"), int("ff", 16), int("0x1f", 16), int("0b101", 0), int("777", 8), int(3.99), int(-3.99), int("1_000")],
    "hexoct": [hex(255), hex(-255), oct(8), oct(-9)],
    "abs": [abs(-5), abs(-2.5), abs(0), abs(-(2 ** 70))],
}

floats = {
    "round": [round(0.5), round(1.5), round(2.5), round(-0.5), round(-1.5), round(2.675, 2), round(1234.5678, -2), round(15, -1), round(25, -1), round(-35, -1), round(3.14159, 3)],
    "round_types": [round(2.5), round(2.5, 0), round(7, 2)],
    "repr": [0.1 + 0.2, 1e16, 1e-5, 1.5e300 * 10, 123456789012345680.0, 2.0 ** 60, 1 / 3, 100.0, 1e22, 1e-7, 0.0001, -0.0, 5e-324],
    "str": [str(1e16), str(1.0), str(1e-4), str(123456789.123456789), str(2 ** 0.5), str(10 / 4), str(float(2 ** 53 + 1))],
    "conv": [float("1e3"), float(" -2.5 "), float("inf") > 1e308, float(7), float("1_0.5") if False else 0.0],
    "div": [7 / 2, -7 / 2, 1 / 8, 10 / 5, 2 ** 0.5 * 2 ** 0.5],
    "cmp": [0.1 + 0.2 == 0.3, abs(0.1 + 0.2 - 0.3) < 1e-9, 1 == 1.0, 2 ** 53 == 2.0 ** 53, 2 ** 53 + 1 == 2.0 ** 53 + 1],
    "intfloat": [int(1e20), int(-1e20), int(2.5e15), float(10 ** 20)],
    "mixed": [3 * 1.5, 7 // 2.0, 2 ** 3.0, True + True, True * 3.5, sum([0.1] * 10), sum([1, 2.5, 3])],
}

avg = sum([3, 4, 4]) / 3
pct = 2 / 3 * 100
return {"ints": ints, "floats": floats, "avg": avg, "pct": pct, "pct_r": round(pct, 1), "avg_fmt": f"{avg:.3f}|{pct:.0f}|{2.5:.0f}|{3.5:.0f}|{0.125:.2f}|{0.375:.2f}"}
