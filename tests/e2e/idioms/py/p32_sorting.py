meta = {"name": "sorting", "description": "sorting with keys, ties and stability"}

people = [{"name": "bo", "age": 31, "team": "b"}, {"name": "Ana", "age": 25, "team": "a"}, {"name": "cy", "age": 31, "team": "a"},
          {"name": "dee", "age": 19, "team": "b"}, {"name": "Ed", "age": 25, "team": None}]
r = {
    "by_age": [p["name"] for p in sorted(people, key=lambda p: p["age"])],
    "by_age_desc_name": [p["name"] for p in sorted(people, key=lambda p: (-p["age"], p["name"].lower()))],
    "reverse_stable": [p["name"] for p in sorted(people, key=lambda p: p["age"], reverse=True)],
    "by_name": sorted(p["name"] for p in people),
    "by_name_ci": sorted((p["name"] for p in people), key=str.casefold),
    "team_none_last": [p["name"] for p in sorted(people, key=lambda p: (p["team"] is None, p["team"] or "", p["name"]))],
    "tuples": sorted([(2, "b"), (1, "z"), (2, "a"), (1, "a")]),
    "mixed_num": sorted([3, 1.5, -2, 0, 2.5, True]),
    "strings": sorted(["b10", "b9", "a", "B", "_", "1", "é", "e"]),
    "natural": sorted(["file10", "file2", "file1"], key=lambda s: (len(s), s)),
    "min_max": [min(people, key=lambda p: p["age"])["name"], max(people, key=lambda p: p["age"])["name"], max([], default="none")],
    "top2": [p["name"] for p in sorted(people, key=lambda p: p["age"], reverse=True)[:2]],
}
xs = [5, 2, 9, 1]
xs.sort()
ys = [5, 2, 9, 1]
ys.sort(reverse=True)
words = ["pear", "fig", "apple", "kiwi"]
words.sort(key=len)
r["in_place"] = [xs, ys, words]
grouped = {}
for p in sorted(people, key=lambda p: p["team"] or "~"):
    grouped.setdefault(p["team"] or "none", []).append(p["name"])
r["grouped"] = grouped
r["rank"] = {p["name"]: i for i, p in enumerate(sorted(people, key=lambda p: (p["age"], p["name"])), 1)}
try:
    sorted([1, None])
except TypeError as e:
    r["err"] = str(e)
try:
    sorted([{"a": 1}, {"a": 2}])
except TypeError as e:
    r["err2"] = str(e)
return r
