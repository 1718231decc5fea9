meta = {"name": "builtins_keys", "description": "enumerate, zip, reversed, any, all, min, max and friends"}

scores = {"ann": 7, "bob": 9, "cy": 9, "dee": 4}
names = list(scores)
out = {
    "enumerate": [list(enumerate("abc", 1)), [i for i, _ in enumerate(names) if i % 2 == 0]],
    "zip": [list(zip([1, 2, 3], "ab")), list(zip()), dict(zip(names, range(10))), list(zip(*[(1, "a"), (2, "b")]))],
    "reversed": [list(reversed(names)), list(reversed(range(1, 10, 3))), list(reversed(scores)), "".join(reversed("abc")), list(reversed((1, 2)))],
    "any_all": [any([]), all([]), any(v > 8 for v in scores.values()), all(isinstance(v, int) for v in scores.values()), any([0, "", None]), all([1, "x", [0]])],
    "max_key": [max(scores, key=scores.get), min(scores, key=scores.get), max(scores.items(), key=lambda kv: kv[1])[0], min([], default="none"), max([], default=0), max(3, 7, 5), min("b", "a", "c"), max([[1, 2], [1, 3], [0, 9]]), max(["aa", "b", "ccc"], key=len), min(["aa", "b", "cc"], key=len)],
    "sorted": [sorted(scores, key=lambda k: (-scores[k], k)), sorted(scores.items(), key=lambda kv: kv[1], reverse=True), sorted([3, 1, 2], reverse=True), sorted(["b", "A", "c"]), sorted(["b", "A", "c"], key=str.lower)],
    "sum": [sum(range(101)), sum([[1], [2, 3]], []), sum([0.5, 0.25], 1), sum(x * x for x in range(4))],
    "map_filter": [list(map(str, [1, 2])), list(map(lambda a, b: a + b, [1, 2, 3], [10, 20])), list(filter(None, [0, 1, "", "a", None, [], [0]])), list(filter(lambda s: s.startswith("b"), names))],
    "isinstance": [isinstance(True, int), isinstance(1, (str, float)), isinstance(1.0, (int, float)), isinstance([], (list, tuple)), isinstance({}, dict), isinstance("s", str), issubclass(bool, int), issubclass(KeyError, LookupError), isinstance(KeyError("x"), Exception)],
    "callable": [callable(len), callable(3), callable(lambda: 0), callable(str.upper)],
    "iter_next": [],
    "chr_ord": [chr(65), ord("a"), [chr(c) for c in range(ord("a"), ord("f"))]],
    "range": [list(range(5, 0, -2)), len(range(0, 100, 7)), range(10)[3], list(range(10)[2:8:3]), 5 in range(0, 10, 5), range(3) == range(0, 3)],
    "bool": [bool([]), bool([0]), bool(0.0), bool("0"), bool(None), bool({}), bool(range(0))],
    "hash_eq": [hash(1) == hash(1.0), hash((1, "a")) == hash((1, "a")), hash(True) == hash(1)],
    "len": [len({"a": 1}), len(range(3, 9)), len("日本"), len(set("banana")), len((1,))],
}
it = iter([1, 2, 3])
out["iter_next"] = [next(it), next(it), next(it), next(it, "done"), next(iter([]), None)]
gen = (x * 2 for x in range(3))
out["gen"] = [next(gen), list(gen), list(gen)]
out["divmod_abs_round"] = [divmod(9, 4), abs(-3), round(-2.5), pow(-2, 3)]
out["tuple_list"] = [tuple("ab"), list({"x": 1, "y": 2}), list({"x": 1}.items()), tuple(range(3))]
out["str_repr"] = [str(None), repr("x"), repr([1, "a", None, 2.0]), str((1,)), repr(()), str({"a": (1, 2)}), repr({1, 2, 3}), repr(frozenset()), repr(set())]
return out
