meta = {"name": "type_hints", "description": "type-hinted helpers as a typed model writes them: annotated parameters, returns and locals; a bare annotation makes the name local"}

def score(items: list[dict[str, int]], *, weight: float = 1.0) -> dict[str, float]:
    out: dict[str, float] = {}
    for it in items:
        name: str = it["name"]
        out[name] = it["v"] * weight
    return out

async def fetch(label: str, retries: int | None = None) -> dict:
    return {"label": label, "retries": retries}

def first_error(rows: list) -> str:
    message: str
    for r in rows:
        if r.get("error"):
            message = r["error"]
            break
    try:
        return message
    except NameError as e:
        return f"{type_of(e)}: {e}"

def type_of(e: Exception) -> str:
    return "UnboundLocalError" if isinstance(e, UnboundLocalError) else "NameError"

results: list[dict] = []
total: int
counter: "dict[str, int]" = {}
res = score([{"name": "a", "v": 2}, {"name": "b", "v": 5}], weight=0.5)
f = await fetch("x")
try:
    total
except NameError as e:
    err = [type_of(e), str(e)]
return {"res": res, "f": f, "results": results, "counter": counter, "err": err,
        "first": [first_error([{"error": "boom"}]), first_error([{}])]}
