meta = {"name": "match_patterns", "description": "every kind of match pattern a workflow script writes, against CPython"}

def literal(v):
    match v:
        case 0:
            return "zero"
        case -1:
            return "minus one"
        case 2.5:
            return "two and a half"
        case "yes" | "y":
            return "agreed"
        case b"raw":
            return "bytes"
        case None:
            return "none"
        case True:
            return "true"
        case False:
            return "false"
        case 1:
            return "one"
    return "no literal"

def value(v):
    match v:
        case math.inf:
            return "infinite"
        case math.pi:
            return "pi"
        case other:
            return f"level {other}"

def sequence(v):
    match v:
        case []:
            return "empty"
        case [x]:
            return f"one {x!r}"
        case [[x, y], [z, *_]]:
            return f"nested {x}{y}{z}"
        case [*_, "end"]:
            return "ends with end"
        case (a, b):
            return f"two {a!r} {b!r}"
        case [first, *middle, last] if len(middle) > 2:
            return f"long {first}..{last} ({len(middle)} between)"
        case ["start", *rest]:
            return f"start then {rest}"
        case [_, _, _]:
            return "three"
        case _:
            return f"not a short sequence: {v!r}"

def mapping(v):
    match v:
        case {}:
            if v == {}:
                return "empty dict"
            return f"a dict with {sorted(v)[0]}" if "only" in v else "some dict"
    return "not a dict"

def mapping2(v):
    match v:
        case {"type": "user", "name": str(name), **rest} if not rest:
            return f"bare user {name}"
        case {"type": "user", "name": name, **rest}:
            return f"user {name} with {sorted(rest)}"
        case {"type": "group", "members": [*members]}:
            return f"group of {len(members)}"
        case {"id": int() | float() as ident}:
            return f"id {ident}"
        case {"a": {"b": {"c": deep}}}:
            return f"deep {deep}"
        case {math.pi: label}:
            return f"high label {label}"
        case _:
            return "other mapping"

def classes(v):
    match v:
        case bool(b):
            return f"bool {b}"
        case int(n) if n < 0:
            return f"negative {n}"
        case int(n):
            return f"int {n}"
        case float(f):
            return f"float {f}"
        case str() as s if s.isdigit():
            return f"digits {s}"
        case str(s):
            return f"str {s.upper()}"
        case dict():
            return f"dict of {len(v)}"
        case list([x, *_]):
            return f"list starting {x}"
        case list():
            return "empty list"
        case tuple(t):
            return f"tuple {t}"
        case _:
            return "something else"

calls = []

def subject():
    calls.append("evaluated")
    return {"k": [1, 2, 3]}

match subject():
    case {"k": [1]}:
        once = "short"
    case {"k": [1, 2]}:
        once = "pair"
    case {"k": [1, *tail]}:
        once = f"tail {tail}"

unmatched = "untouched"
match 42:
    case "42":
        unmatched = "string"
    case [42]:
        unmatched = "list"

# A guard that fails after binding leaves the binding, as CPython does.
match [7, 8]:
    case [seen, _] if seen > 100:
        guarded = "big"
    case _:
        guarded = f"small, seen={seen}"

# Capturing into the subject's own name.
pair = ["left", "right"]
match pair:
    case [pair, other]:
        rebound = [pair, other]

# match inside a loop: break and continue in case bodies.
stream = ["a", "skip", "b", "stop", "c"]
kept = []
for item in stream:
    match item:
        case "skip":
            continue
        case "stop":
            break
        case letter:
            kept.append(letter)

def nested(v):
    match v:
        case {"op": op, "args": list(operands)}:
            match op:
                case "+":
                    return sum(nested(a) for a in operands)
                case "*":
                    product = 1
                    for a in operands:
                        product *= nested(a)
                    return product
                case _:
                    return 0
        case int(n):
            return n
        case _:
            return 0

return {
    "literal": [literal(v) for v in [0, -1, 2.5, "y", "yes", b"raw", None, True, False, 1, 1.0, 2, "no"]],
    "value": [value(v) for v in [float("inf"), math.pi, 2]],
    "sequence": [sequence(v) for v in [[], [1], ("a", "b"), [1, 2, 3, 4, 5, 6], ["x", "end"], ["start", 1, 2, 3], [[1, 2], [3, 4, 5]], (1, 2, 3), "abc", "ab", {"a": 1}, range(2), [1, 2, 3, 4]]],
    "mapping": [mapping(v) for v in [{}, {"only": 1}, {"a": 1, "b": 2}, [], "s"]],
    "mapping2": [mapping2(v) for v in [{"type": "user", "name": "ann"}, {"type": "user", "name": "bob", "role": "admin", "age": 3}, {"type": "user", "name": 5}, {"type": "group", "members": ("a", "b")}, {"id": 7}, {"id": 7.5}, {"id": "7"}, {"a": {"b": {"c": "!"}}}, {math.pi: "hi"}, {"type": "group", "members": "abc"}, ["type"]]],
    "classes": [classes(v) for v in [True, -3, 4, 2.0, "123", "abc", {"a": 1}, [9, 8], [], (1, 2), None, {1, 2}]],
    "once": [once, calls],
    "unmatched": unmatched,
    "guarded": guarded,
    "rebound": rebound,
    "kept": kept,
    "nested": nested({"op": "+", "args": [1, {"op": "*", "args": [2, 3, 4]}, {"op": "?", "args": []}, "x"]}),
}
