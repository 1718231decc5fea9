meta = {
    "name": "recursive_generators",
    "description": "Walk a deep task tree with recursive generators (yield from) and rank subtrees with a sorted key that recurses",
    "phases": ["walk"],
}

phase("walk")
spec = await agent("Return the task tree spec", label="spec")

def build(depth, fanout_at):
    node = {"name": f"leaf{depth}", "cost": depth}
    for level in range(depth - 1, -1, -1):
        kids = [node] + ([{"name": f"side{level}", "cost": level}] if level in fanout_at else [])
        node = {"name": f"t{level}", "cost": 1, "children": kids}
    return node

def walk(node, depth=0):
    yield depth, node["name"]
    for child in node.get("children", []):
        yield from walk(child, depth + 1)

def total(node):
    return node["cost"] + sum(total(c) for c in node.get("children", []))

def ranked(node, depth=0):
    kids = sorted(node.get("children", []), key=lambda c: (-total(c), c["name"]))
    if depth >= spec["rank_depth"] or not kids:
        return [node["name"]]
    return [node["name"]] + ranked(kids[0], depth + 1)

tree = build(spec["depth"], set(spec["fanout_at"]))
rows = list(walk(tree))
log(f"{len(rows)} nodes, deepest {max(d for d, _ in rows)}")
return {"count": len(rows), "deepest": rows[-1], "sides": [n for d, n in rows if n.startswith("side")],
        "total": total(tree), "path": ranked(tree)[-3:]}
