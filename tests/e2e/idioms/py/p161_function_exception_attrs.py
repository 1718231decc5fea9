meta = {"name": "function_exception_attrs", "description": "attributes set on functions and exception instances: memo, decorator counters, registries, errors carrying data"}

out = {}


def fetch(n):
    fetch.calls.append(n)
    return n * 2


fetch.calls = []
fetch(1)
fetch(5)
try:
    fetch.nope
    nope = "present"
except AttributeError as e:
    nope = str(e)
out["plain"] = [fetch.calls, nope]


def counted(fn):
    def wrapper(*args):
        wrapper.count += 1
        return fn(*args)
    wrapper.count = 0
    wrapper.label = "counted"
    return wrapper


@counted
def add(a, b):
    return a + b


@counted
def neg(a):
    return -a


add(1, 2)
add(3, 4)
neg(1)
out["decorated"] = [add.count, neg.count, add.label]

registry = []


def register(kind):
    def deco(fn):
        fn.kind = kind
        fn.tags = []
        registry.append(fn)
        return fn
    return deco


@register("lint")
def check_a(x=1):
    return x


@register("test")
def check_b():
    return 2


check_a.tags.append("fast")
passed = registry[0]
passed.tags.append("stable")
out["registry"] = [[f.kind, f.tags, f()] for f in registry]


def memo(n):
    if n in memo.cache:
        return memo.cache[n]
    r = n if n < 2 else memo(n - 1) + memo(n - 2)
    memo.cache[n] = r
    return r


memo.cache = {}
out["memo"] = [memo(40), len(memo.cache)]


def helper(x):
    return x + 100


def host():
    return 0


host.helper = helper
host.note = "v1"
host.note = "v2"
out["callable_attr"] = [host.helper(1), host.note]
del host.note
try:
    host.note
    out["after_del"] = "still there"
except AttributeError as e:
    out["after_del"] = [str(e), host.helper(2)]
try:
    del host.note
except AttributeError as e:
    out["del_missing"] = str(e)
try:
    host.missing
except AttributeError as e:
    out["get_missing"] = str(e)


def make(tag):
    def inner():
        return tag
    inner.tag = tag
    return inner


fs = [make("a"), make("b")]
out["closures"] = [[f.tag, f()] for f in fs]

# exceptions carrying data
try:
    err = ValueError("quota exceeded")
    err.retry_after = 30
    err.details = {"limit": 5, "used": [1, 2]}
    raise err
except ValueError as e:
    out["exc"] = [str(e), repr(e), e.retry_after, e.details, list(e.args)]


def parse(text):
    try:
        return int(text)
    except ValueError as e:
        e.stage = "parse"
        e.text = text
        raise


try:
    parse("x1")
except ValueError as e:
    out["reraise"] = [e.stage, e.text, str(e)]

try:
    try:
        low = KeyError("missing")
        low.key_name = "missing"
        raise low
    except KeyError as inner:
        wrapped = RuntimeError("lookup failed: " + inner.key_name)
        wrapped.inner_key = inner.key_name
        wrapped.attempt = 2
        raise wrapped from inner
except RuntimeError as e:
    out["chained"] = [str(e), e.inner_key, e.attempt]

errs = []
for i in range(3):
    x = RuntimeError("t" + str(i))
    x.index = i
    errs.append(x)
out["collected"] = [[str(x), x.index] for x in errs]

e2 = ValueError("x")
e2.flag = True
del e2.flag
try:
    e2.flag
    out["exc_del"] = "still there"
except AttributeError as e:
    out["exc_del"] = [str(e), str(e2), repr(e2)]
try:
    e2.nothing
except AttributeError as e:
    out["exc_missing"] = str(e)
try:
    del e2.nothing
except AttributeError as e:
    out["exc_del_missing"] = str(e)
return out
