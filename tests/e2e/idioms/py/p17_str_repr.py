meta = {"name": "str_repr", "description": "str() and repr() of values, as prompts and logs embed them"}

results = {"ok": [1, 2.5, None, True], "name": "it's", "nested": {"t": (1, "a"), "e": [], "d": {}}}
texts = [str(results), repr(results), f"{results}", str([1.0, -0.0, 1e-9, 1e22, float("nan")]), str((1,)), str(()),
         str({1, 2, 3}), str(set()), str(frozenset()), repr("a\nb\tc\\d'e\"f"), repr("only 'single'"), repr('only "double"'),
         str(b"bytes"), repr(b"b'q"), str([["x"], {"k": None}]), repr(3.0), repr(1e100), repr(-1.5e-10), str(2**64),
         str(123456789.0), str(0.1 + 0.7), str(1/7), str(range(3)), repr(range(1, 10, 2)), str(True + True), str([True, False])]
name = meta["name"]
phases = meta.get("phases", [])
log(results)
log(f"{len(results)} keys in {name}")
log(3.5)
kinds = [isinstance(1, (int, float)), isinstance(1.0, (int, float)), isinstance("1", (int, float)), isinstance(None, (list, dict)),
         isinstance([], (list, tuple)), isinstance(True, bool), isinstance({}, dict)]
divs = [7 / 2, 8 / 2, 7 // 2, round(7 / 2), round(2.5), round(3.5), int(7 / 2), float(7), 10 ** 2, 10 ** -1, 2 ** 0.5, abs(-3), abs(-3.0)]
joined = ", ".join(f"{k}={v}" for k, v in sorted({"b": 2, "a": [1]}.items()))
prompt = f"Review these results: {results['ok']} and report back.\nName: {name!r}"
return {"texts": texts, "name": name, "phases": phases, "kinds": kinds, "divs": divs, "joined": joined, "prompt": prompt}
