meta = {"name": "deep_recursion", "description": "recursion as deep as CPython's limit allows, and a catchable RecursionError past it"}

def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)

def flatten(tree):
    if isinstance(tree, list):
        out = []
        for part in tree:
            out.extend(flatten(part))
        return out
    return [tree]

nested = 0
for i in range(900):
    nested = [nested, i]
copy = json.loads(json.dumps(nested))

results = {"depth": depth(900), "flat": len(flatten(nested)), "equal": copy == nested, "repr": len(repr(nested))}
try:
    depth(100000)
except RecursionError as e:
    results["too_deep"] = "RecursionError"
return results
