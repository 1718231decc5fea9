meta = {"name": "stage_arity", "description": "pipeline passes a stage as many of (prev, item, index) as its positional parameters, once; builtins and types as stages and thunks"}

calls = []

def two(prev, item):
    calls.append(["two", prev, item])
    return prev + 1

def three(prev, item, index, extra=0):
    calls.append(["three", prev, item, index])
    return prev * 10

def keyword_only(prev, *, k=1):
    calls.append(["kw", prev, k])
    return prev

def star(*parts):
    calls.append(["star", len(parts)])
    return parts[0]

def fails(prev, item, index):
    calls.append(["fails", prev])
    raise TypeError("takes 1 positional argument but 3 were given")

numbers = await pipeline([1, 2], two, three, keyword_only, star, lambda *a: len(a))
conversions = await pipeline(["1", "22"], int, float, str, len, abs)
methods = await pipeline([" a ", "b"], str.strip, len)
bound = await pipeline(["x", "yy"], " y ".strip, str.upper)
ordered = await pipeline([[3, 1, 2]], sorted, reversed, list, lambda p, i, x: [p, i, x])
thunks = await parallel([str, int, list, dict, float, lambda: 3])

caught = None
try:
    await pipeline([5], fails)
except PipelineStageError as e:
    caught = [e.item_index, e.stage_index, e.cause_type]

return {"numbers": numbers, "conversions": conversions, "methods": methods, "bound": bound,
        "ordered": ordered, "thunks": thunks, "caught": caught, "calls": calls}
