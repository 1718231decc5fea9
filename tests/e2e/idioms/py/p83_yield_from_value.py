meta = {"name": "yield_from_value", "description": "yield from evaluates to the inner generator's return value"}

def pages(n):
    for i in range(n):
        yield f"page-{i}"
    return n

def crawl(sizes):
    total = 0
    for size in sizes:
        got = yield from pages(size)
        total += got
    yield {"total": total}

def plain():
    r = yield from [1, 2]
    yield r

def nested():
    inner = yield from crawl([1])
    yield inner

items = list(crawl([2, 0, 3]))
return {"items": items, "plain": list(plain()), "nested": list(nested())}
