meta = {"name": "set_inplace_updates", "description": "set.difference_update / intersection_update / symmetric_difference_update in place, in CPython's order"}

# Label cleanup: a ticket's labels, pruned and merged in place.
labels = {"bug", "ui", "backend", "p1", "needs-triage", "wontfix", "docs", "api"}
same = labels
labels.difference_update(["needs-triage", "wontfix"], {"p1"})
pruned = list(labels)
labels.intersection_update({"bug", "ui", "api", "docs", "extra"})
kept = list(labels)
labels.symmetric_difference_update(["ui", "security", "perf"])
toggled = list(labels)
labels.add("zz-late")
labels.add("p0")

out = {"pruned": pruned, "kept": kept, "toggled": toggled, "after_add": list(labels),
       "identity": same is labels, "none": labels.difference_update() is None}

# Integer ids, with dummies left behind and refilled.
ids = set(range(0, 40, 3))
ids.difference_update(range(0, 40, 6))
a = list(ids)
ids.symmetric_difference_update({3, 4, 5, 100, 33, 64})
b = list(ids)
ids.add(6)
ids.add(12)
c = list(ids)
ids.intersection_update(range(50), [5, 9, 4, 100, 15, 21, 27, 39, 6])
d = list(ids)
ids.intersection_update()
e = list(ids)
out["ints"] = [a, b, c, d, e]

# Colliding small ints (slot = n & mask) and negative ones.
col = {1, 9, 17, 25, -1, -9, 8, 16}
col.symmetric_difference_update([9, 2, 10, 18, 26, -1])
out["collide"] = list(col)
col.difference_update({17, 1})
col.update([33, 41])
out["collide2"] = list(col)

# A dict's keys are walked in insertion order; the set itself clears.
s = {"x", "y", "z"}
s.symmetric_difference_update({"w": 1, "x": 2, "v": 3})
out["dict"] = sorted(s)
t = {1, 2, 3}
t.symmetric_difference_update(t)
u = {4, 5}
u.difference_update(u)
out["self"] = [list(t), list(u)]
f = frozenset(["a", "b", "c", "d"])
g = {"b", "d", "q"}
g.intersection_update(f)
out["frozen"] = sorted(g)

# Method forms with lists, tuples and dicts are walked in their own order.
tags = {"w%d" % i for i in range(0, 30, 2)}
incoming = ["w%d" % i for i in range(40, 0, -3)]
counts = dict.fromkeys(["w7", "w3", "w12", "w40", "w1", "w22", "w9"], 0)
grown = set(tags)
grown.update(incoming)
out["walked"] = [list(tags.union(incoming)), list(tags.intersection(incoming, counts)), list(tags.difference(tuple(incoming))),
                 list(tags.symmetric_difference(incoming)), list(grown), list(set(counts)), list(tags.union(counts)),
                 list(frozenset(tags).intersection(incoming))]
nums = set(range(-10, 60, 7))
nums.update([70, 3, -1, 64, 5])
out["walked_ints"] = [list(nums), list(nums.intersection([64, 5, -3, 4, 3, 11])), list(nums.symmetric_difference([4, 3, 2, 1]))]

# Augmented assignment mutates the set itself (other names see it).
seen = {"w%d" % i for i in range(20)}
view = seen
seen -= {"w3", "w4"}
after_sub = list(view)
seen &= {"w%d" % i for i in range(0, 30, 3)}
after_and = list(view)
seen |= frozenset(["z", "w2", "w40"])
out["augmented"] = [after_sub, after_and, list(view), view is seen]

errs = []
for call in [lambda: {1}.difference_update(5), lambda: {1}.intersection_update(None),
             lambda: {1}.symmetric_difference_update(), lambda: {1}.symmetric_difference_update([1], [2]),
             lambda: {1}.difference_update([[1]]), lambda: {1}.symmetric_difference_update([{}])]:
    try:
        call()
        errs.append("ok")
    except TypeError as exc:
        errs.append("TypeError: " + str(exc))
out["errors"] = errs
return out
