meta = {"name": "numbers", "description": "arithmetic a budget or scoring script does"}

vals = [7, -7, 7.5, -7.5, 0.1, 1e300]
out = {
    "div": [7 // 2, -7 // 2, 7 % 3, -7 % 3, 7 % -3, 7.5 // 2, -7.5 % 2, divmod(-7, 2), divmod(7.5, 2), 2 ** -1, (-8) ** (1 / 3) if False else 0],
    "float_repr": [0.1 + 0.2, 1 / 3, 2 / 3, 10 / 4, 1e16, 1e15, 123456789.123456789, 1.0, -0.0, 5e-324, 1.7976931348623157e308, 0.1 * 3, 100 * 1.1],
    "str": [str(1e16), str(1e15), str(0.0001), str(0.00001), str(1.5e-7), str(2.0), repr(1e22), str(12345678912345.678), str(-1e-10)],
    "round": [round(2.5), round(3.5), round(-2.5), round(0.5), round(1.5), round(2.675, 2), round(1234.5678, -2), round(7, -1), round(15, -1), round(25, -1), round(0.125, 2), round(1e300, 2), round(-0.4)],
    "conv": [int("42"), int(" -7 "), int("0x1f", 16), int("ff", 16), int("101", 2), int("z", 36), int(3.99), int(-3.99), float("1e3"), float(" 2.5 "), float("-inf") < 0, int(True), float(7), int("1_000")],
    "big": [2 ** 64, 2 ** 100 // 3, -(2 ** 70) % 1000, 10 ** 20 + 1, pow(3, 200, 1000), pow(2, 10), abs(-2 ** 65), 2 ** 64 / 2, 12345678901234567890 * 98765432109876543210],
    "mixed": [1 + 2.0, 3 * 1.5, True + True, 10 / 5, 9 ** 0.5, 2 ** 0.5, (-2) ** 2, -2 ** 2, 1e3 == 1000, 0.1 + 0.2 == 0.3, abs(-3.5), -(-0.0)],
    "cmp": [1 < 2 < 3, 3 > 2 > 2, 1 == 1.0, (1, 2) < (1, 3), [1, 2] < [1, 2, 0], max(3, 7.0), min([4, 2.0, 2]), sorted([3, 1.5, 2, -1]), float("nan") == float("nan")],
    "hexoct": [hex(255), hex(-42), oct(8), hex(2 ** 70), "%x" % 255 if False else "skip"],
    "isint": [(3.0).is_integer(), (3.5).is_integer(), (-0.0).is_integer(), (0.75).as_integer_ratio(), (-2.5).as_integer_ratio(), (0.1).as_integer_ratio(), (1e20).as_integer_ratio(), (7).bit_length(), (-8).bit_length(), (0).bit_length(), True.bit_length()],
    "agg": [sum([0.1] * 10), sum([1, 2, 3], 10), sum([0.1, 0.2, 0.3]), sum(range(101)), sum(x * x for x in range(10)) / 10],
}
return out
