meta = {"name": "parallel_window_failure_later", "description": "A failure among the branches started as the first 8 finish: the branches started with it still run their first step, none after them starts"}

seen = []

def parse(row):
    seen.append(row["id"])
    if row["qty"] < 0:
        raise ValueError(f"row {row['id']}: negative quantity {row['qty']}")
    return row["qty"] * row["price"]

rows = [{"id": i, "qty": -1 if i == 9 else i, "price": 3} for i in range(20)]
try:
    await parallel([lambda r=r: parse(r) for r in rows])
    out = "all parsed"
except ValueError as e:
    out = [str(e), list(seen)]

seen.clear()
try:
    await pipeline(rows, lambda r: r, parse)
    staged = "all parsed"
except PipelineStageError as e:
    staged = [str(e), e.item_index, e.stage_index, list(seen)]

# Without a failure every row is parsed, in order.
seen.clear()
totals = await parallel([lambda r=r: parse({**r, "qty": abs(r["qty"])}) for r in rows])
return {"out": out, "staged": staged, "totals": totals, "order": seen}
