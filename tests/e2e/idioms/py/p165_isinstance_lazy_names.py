meta = {"name": "isinstance_lazy_names", "description": "isinstance against map/filter/zip/enumerate/reversed in materialise-if-lazy helpers"}


def materialise(v):
    return list(v) if isinstance(v, (map, filter, zip, enumerate, reversed)) else v


def as_list(v):
    if isinstance(v, (list, tuple)):
        return list(v)
    if isinstance(v, (map, filter)):
        return list(v)
    return [v]


out = [
    materialise(map(str, [1, 2])),
    materialise(reversed("ab")),
    materialise(7),
    materialise(filter(None, [0, 1, 2])),
    materialise(zip("ab", [1, 2])),
    materialise(enumerate("xy")),
    as_list(map(abs, [-1, -2])),
    as_list((1, 2)),
    as_list("s"),
    isinstance(5, map),
    isinstance("abc", (zip, str)),
    isinstance([1], (enumerate, (reversed, filter))),
    isinstance(None, (map, int)),
]
return out
