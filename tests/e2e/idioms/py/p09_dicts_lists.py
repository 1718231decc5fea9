meta = {"name": "collections", "description": "dict and list methods"}

inventory = {"apples": 3, "pears": 0, "kiwis": 12}
ops = []
ops.append(inventory.setdefault("plums", 5))
ops.append(inventory.setdefault("apples", 99))
ops.append(inventory.get("figs", -1))
ops.append(inventory.pop("pears"))
ops.append(inventory.pop("nothing", "default"))
inventory.update(kiwis=1, limes=4)
inventory.update([("dates", 2)])
ops.append(list(inventory))
ops.append(inventory.popitem())
ops.append(dict.fromkeys(["x", "y"], 0))
ops.append(dict(zip("abc", range(3))))
ops.append(dict(a=1, **{"b": 2}))
ops.append(sorted(inventory.items(), key=lambda kv: kv[1]))
ops.append({**inventory, "apples": 0})
d = {"k1": 1, "k2": 2}
del d["k1"]
d["k1"] = 1
ops.append(list(d.keys()))
ops.append("k2" in d and 2 in d.values())
xs = [5, 3, 8, 1]
xs.append(9)
xs.insert(0, 7)
xs.insert(-1, 4)
xs.extend([2, 2])
xs.remove(2)
popped = [xs.pop(), xs.pop(0)]
idx = [xs.index(8), xs.count(2)]
ys = xs.copy()
ys.sort(reverse=True)
xs.reverse()
zs = xs[:]
zs[1:3] = ["a", "b", "c"]
copied = {"list": [1, [2, 3]]}
shallow = dict(copied)
shallow["list"].append(4)
nested = [[1, 2], [3]]
deep = [list(r) for r in nested]
deep[0].append(99)
words = ["pear", "Apple", "fig", "apple"]
stable = sorted(words, key=len)
ci = sorted(words, key=str.lower)
ci_rev = sorted(words, key=str.lower, reverse=True)
nested_sort = sorted([[2, "b"], [1, "z"], [2, "a"]])
grouped = {}
for w in words:
    grouped.setdefault(w[0].lower(), []).append(w)
lists = [[1, 2] + [3], [0] * 3, [1, 2] == [1, 2], [1, 2] < [1, 3], len([[]]), [None] * 2, list("abc"), list({"a": 1, "b": 2}), list((1, 2))]
return {"ops": ops, "xs": xs, "ys": ys, "zs": zs, "popped": popped, "idx": idx, "copied": copied, "nested": nested, "deep": deep,
        "stable": stable, "ci": ci, "ci_rev": ci_rev, "nested_sort": nested_sort, "grouped": grouped, "lists": lists}
