meta = {"name": "a01", "description": "parallel/pipeline over iterables that are not lists"}
out = {}
out["tuple"] = await parallel((lambda: 1, lambda: "two"))
out["gen"] = await parallel(lambda i=i: i * 10 for i in range(3))
out["empty"] = await parallel([])
out["emptydict"] = await parallel({})
async def co(x):
    return x + 1
out["mixed"] = await parallel([lambda: co(1), lambda: 5, lambda: None])
out["nostage"] = await pipeline([3, 1, 2])
out["str_items"] = await pipeline("abc", str.upper)
out["dict_items"] = await pipeline({"a": 1, "bb": 2}, lambda k: k * 2)
out["range_items"] = await pipeline(range(3), lambda prev, item, idx: [prev, item, idx])
out["tuple_items"] = await pipeline(("x", "y"), lambda p: p + "!", lambda p, it: p + it)
out["empty_items"] = await pipeline([], lambda p: 1 / 0)
out["async_stage"] = await pipeline([1, 2], co, co)
return out
