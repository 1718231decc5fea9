meta = {
    "name": "generator_finalize",
    "description": "A generator left paused in try (break, next() once, any(), zip) runs its finally when dropped, logging in CPython's order",
    "phases": ["scan"],
}

phase("scan")
pages = (await agent("List the result pages", label="pages"))["pages"]

def stream(pages, tag):
    seen = 0
    try:
        for page in pages:
            for row in page:
                seen += 1
                yield row
    finally:
        log(f"{tag}: closed after {seen} rows")

hits = []
for row in stream(pages, "loop"):
    if row.startswith("ERR"):
        hits.append(row)
        break
log("loop done")
first = next(stream(pages, "peek"))
log(f"peeked {first}")
has_warn = any(r.startswith("WARN") for r in stream(pages, "any"))
log(f"any warn: {has_warn}")
pairs = list(zip(stream(pages, "zip"), range(2)))
log(f"zipped {len(pairs)}")

def wrapped():
    for r in stream(pages, "inner"):
        yield r.lower()

w = wrapped()
head = [next(w), next(w)]
w = None
log(f"head {head}")
return {"hits": hits, "first": first, "has_warn": has_warn, "pairs": pairs, "head": head}
