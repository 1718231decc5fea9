meta = {"name": "builtin_no_keywords", "description": "keyword arguments to builtins that take none: CPython's 'takes no keyword arguments'"}

out = []
cases = [
    lambda: len(obj=[1]),
    lambda: float(x="1"),
    lambda: abs(x=-1),
    lambda: ord(c="a"),
    lambda: chr(i=97),
    lambda: math.sqrt(x=4),
    lambda: math.floor(x=1.5),
    lambda: divmod(a=7, b=2),
    lambda: math.pow(x=2, y=3),
    lambda: list(iterable=[1]),
    lambda: tuple(iterable=[1]),
    lambda: "xax".strip(chars="x"),
    lambda: [].append(object=1),
    lambda: math.comb(n=5, k=2),
    lambda: math.gcd(a=4),
    lambda: "ab".count(x="a"),
    lambda: "abc".startswith(prefix="a"),
    lambda: len([1, 2]),
    lambda: abs(-3),
]
for f in cases:
    try:
        out.append(["ok", f()])
    except TypeError as e:
        out.append(str(e))
return out
