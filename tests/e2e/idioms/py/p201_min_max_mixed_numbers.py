meta = {"name": "min_max_mixed_numbers", "description": "min and max of ints, floats, NaN and signed zeros, and arithmetic mixing bools, ints and floats, at the edges of the interpreter's fast paths"}
nan = float("nan")
out = [min(3, 1, 2), max(3, 1, 2), min(1, 2), max(1, 2), min(2.5, 1.5), repr(max(nan, 1.0)), max(1.0, nan), repr(min(nan, 1.0, 0.5)), min(1.0, nan, 0.5), min(1, 2.5), max(True, 0), min(5, 3, key=lambda x: -x), repr(max(-0.0, 0.0)), repr(min(0.0, -0.0)), max(2, 2.0), min(2.0, 2), max([4, 9, 1]), min(7, 7.5, 6)]
out.append([True + 1, 1 + True, True * 3, 3 - True, 1 + 0.5, 0.5 * 2, 2 ** 53 + 0.0, 9007199254740993 + 0.0, 9007199254740993 == 9007199254740992.0, 9007199254740993 > 9007199254740992.0, 3 < 3.5, 1 == 1.0, 7 / True, 2 // True, 5 % True, 1.5 // 1, 7 % 2.5, 1 / 0.5, True + True, -1 * 0.0, 0.0 * -1])
return out
