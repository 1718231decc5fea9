meta = {"name": "parallel_failure_cancels_siblings", "description": "A failing parallel branch cancels its siblings: every branch has started, none resumes after its pending agent call"}

trace = []

async def review(i, note=True):
    if note:
        trace.append(f"start {i}")
    r = await agent(f"Review part {i}", label="review")
    if note:
        trace.append(f"reviewed {i}")
    return r["score"] + i

def broken():
    trace.append("broken")
    raise ValueError("no such part")

try:
    await parallel([lambda: review(1), broken, lambda: review(2)])
    outcome = "finished"
except ValueError as e:
    outcome = f"caught {e}"
trace.append(outcome)

# The run goes on: a later parallel runs every branch to the end.
scores = await parallel([lambda i=i: review(i, False) for i in range(3, 6)])
trace.append("scores " + ",".join(str(s) for s in scores))
return {"trace": trace, "scores": scores}
