meta = {"name": "sorting2", "description": "sorting findings by several keys, stability, and mixed values"}

rows = [
    {"id": "b2", "sev": 2, "score": 7.5, "owner": "Zed"},
    {"id": "a1", "sev": 1, "score": 9.0, "owner": "amy"},
    {"id": "c3", "sev": 2, "score": 7.5, "owner": "bob"},
    {"id": "d4", "sev": 3, "score": 1.0, "owner": "Amy"},
    {"id": "e5", "sev": 1, "score": 9.0, "owner": "cat"},
]
out = {}
out["by_sev_then_score_desc"] = [r["id"] for r in sorted(rows, key=lambda r: (r["sev"], -r["score"]))]
out["stable_reverse"] = [r["id"] for r in sorted(rows, key=lambda r: r["score"], reverse=True)]
out["owner_ci"] = [r["owner"] for r in sorted(rows, key=lambda r: r["owner"].lower())]
out["owner_cs"] = sorted(r["owner"] for r in rows)
resorted = sorted(rows, key=lambda r: r["id"])
resorted.sort(key=lambda r: r["sev"], reverse=True)
out["resorted"] = [r["id"] for r in resorted]
out["mixed_nums"] = sorted([3, 1.5, -2, 0, 2.0, True, False])
out["tuples"] = sorted([(1, "b"), (1, "a"), (0, "z"), (1,), ()])
out["strings"] = sorted(["b10", "b9", "B1", "a", "", "_x", "10", "9"])
out["nat"] = sorted(["file10", "file9", "file1"], key=lambda s: (len(s), s))
out["lens"] = sorted(["ccc", "a", "bb", "dd", "e"], key=len)
out["neg_str"] = sorted(["b", "a", "c"], reverse=True)
nums = [5, 3, 8, 1]
nums.sort()
out["inplace"] = [nums, nums.sort() is None]
try:
    sorted([1, None, 2])
except TypeError as e:
    out["none_err"] = str(e)
try:
    sorted([{"a": 1}, {"a": 2}])
except TypeError as e:
    out["dict_err"] = str(e)
out["none_last"] = sorted([3, None, 1], key=lambda v: (v is None, v or 0))
out["top3"] = sorted(rows, key=lambda r: r["score"], reverse=True)[:3][-1]["id"]
out["rank"] = {r["id"]: i + 1 for i, r in enumerate(sorted(rows, key=lambda r: (-r["score"], r["id"])))}
out["max_tie"] = max(rows, key=lambda r: r["score"])["id"]
out["min_tie"] = min(rows, key=lambda r: r["sev"])["id"]
out["sorted_dict"] = sorted({"b": 1, "a": 2})
out["sorted_items_val"] = sorted({"b": 1, "a": 2, "c": 1}.items(), key=lambda kv: kv[1])
out["sorted_set"] = sorted({"pear", "apple", "fig"})
out["reversed_sorted"] = list(reversed(sorted([2, 3, 1])))
out["floats"] = sorted([0.1 + 0.2, 0.3, 1e-9, -0.0, 0.0])
out["bools"] = sorted([True, False, True])
return out
