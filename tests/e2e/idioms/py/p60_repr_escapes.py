meta = {"name": "repr_escapes", "description": "repr and str of strings and containers that agents return"}

samples = ["plain", "it's", 'say "hi"', "both ' and \"", "tab\there", "new\nline", "back\\slash", "nul\x00", "bell\x07", "del\x7f", "é ñ", "日本", "emoji 😀", "\u200b zero width", "\x1b[31mred", "", " ", "\r\n"]
out = {
    "repr": [repr(s) for s in samples],
    "in_list": str(samples[:6]),
    "ascii": [ascii(s) for s in ["é", "日本", "😀", "plain"]] if False else [],
    "fstring_r": [f"{s!r}" for s in samples[:4]],
    "nested": repr({"k": ["it's", ("t",), {"n": None}], 2: 1.5, (1, 2): True}),
    "floats": repr([0.1, 1e-10, 1e100, -0.0, 3.0, 2.5e-5, 1234567890123.0, float("inf"), float("-inf")]),
    "numbers": [repr(10 ** 20), repr(-5), repr(True), repr(None), str(1.0), str(1e16), repr(1.23456789012345678)],
    "bytes": [repr(b"abc"), repr(b"\x00\xff'")],
    "tuple": [repr((1,)), repr(()), repr((1, "a", (2,)))],
    "set_frozen": [repr({1}), repr(frozenset({2})), repr(set())],
    "range_slice": [repr(range(3)), repr(range(1, 10, 2)), repr(slice(1, 5, None))],
    "bool_ops": [str(True and "x"), str(0 or None), str(not []), str([] or {})],
    "str_of_str": [str("x"), str(["x"]), str(("x",)), str({"x": "y"})],
    "exceptions": [repr(ValueError("bad")), str(ValueError("bad")), repr(KeyError("k")), str(KeyError("k")), repr(RuntimeError()), str(IndexError())],
    "join_repr": ", ".join(repr(x) for x in [1, "a", None, 2.0, [1], {"a": 1}]),
    "len_repr": [len(repr(s)) for s in samples],
}
return out
