meta = {"name": "comprehensions3", "description": "comprehension scoping, nesting and conditional forms"}

x = "outer"
squares = [x * x for x in range(4)]
matrix = [[r * 3 + c for c in range(3)] for r in range(3)]
flat = [v for row in matrix for v in row if v % 2 == 0]
pairs = [(a, b) for a in range(3) for b in range(a) if (a + b) % 2]
cond = ["even" if n % 2 == 0 else "odd" for n in range(4)]
nested_cond = [n if n > 0 else (-n if n < -1 else 0) for n in [-3, -1, 0, 2]]
dict_comp = {k: len(k) for k in ["ab", "c", "def"] if len(k) > 1}
set_comp = sorted({w.lower() for w in ["A", "a", "B", "b", "c"]})
gen_sum = sum(n for n in range(10) if n % 3 == 0)
any_short = any(n > 2 for n in [1, 3, 5])
first_match = next((w for w in ["x", "yy", "zzz"] if len(w) > 1), None)
no_match = next((w for w in [] if w), "default")
transposed = list(map(list, zip(*matrix)))
enumerate_comp = {i: ch for i, ch in enumerate("abc")}
zipped = {k: v for k, v in zip("abc", range(10))}
dedupe = list(dict.fromkeys(["b", "a", "b", "c", "a"]))
counts = {c: "mississippi".count(c) for c in sorted(set("mississippi"))}
nested_dict = {o: {i: o * i for i in range(1, 3)} for o in range(1, 3)}
filtered_items = [k for k, v in {"a": 0, "b": 1, "c": None}.items() if v is not None]
closure_list = [(lambda n=n: n * 2)() for n in range(3)]
cumulative = []
acc = 0
for n in [1, 2, 3, 4]:
    acc += n
    cumulative.append(acc)
running = [sum([1, 2, 3, 4][: i + 1]) for i in range(4)]
groups = {}
for word in ["apple", "avocado", "banana", "blueberry", "cherry"]:
    groups.setdefault(word[0], []).append(word)
group_sizes = {k: len(v) for k, v in groups.items()}
chunks = [[1, 2, 3, 4, 5, 6, 7][i:i + 3] for i in range(0, 7, 3)]
window = [sum(w) / len(w) for w in zip([1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6])]
strings = [s.strip().title() for s in " a ,b b, c ".split(",") if s.strip()]
tuples = [(i, j) for i, j in [(1, 2), (3, 4)] if i < j]
unpack_star = [[first, rest] for first, *rest in [[1, 2, 3], [4], [5, 6]]]
return {
    "x_after": x, "squares": squares, "flat": flat, "pairs": pairs, "cond": cond, "nested_cond": nested_cond,
    "dict_comp": dict_comp, "set_comp": set_comp, "gen_sum": gen_sum, "any_short": any_short,
    "first_match": first_match, "no_match": no_match, "transposed": transposed, "enumerate_comp": enumerate_comp,
    "zipped": zipped, "dedupe": dedupe, "counts": counts, "nested_dict": nested_dict, "filtered_items": filtered_items,
    "closure_list": closure_list, "cumulative": cumulative, "running": running, "group_sizes": group_sizes,
    "chunks": chunks, "window": window, "strings": strings, "tuples": tuples, "unpack_star": unpack_star,
}
