meta = {
    "name": "phase_budget_in_generators",
    "description": "phase() and budget reads from a generator's body, a sorted key and a map callback",
    "phases": ["collect", "review"],
}

phase("collect")
first = await agent("List the services to review", label="services")
names = first["services"]

def batches(items, size):
    for start in range(0, len(items), size):
        phase(f"review batch {start // size + 1}")
        left = budget.remaining()
        yield {
            "items": items[start:start + size],
            "spent_before": budget.spent(),
            "capped": left != math.inf,
        }

plan = list(batches(names, 2))
notes = await agent("Summarise the plan", label="summary")

def walk(depth):
    if depth:
        phase(f"walk {depth}")
        yield depth, budget.spent()
        yield from walk(depth - 1)

ranked = sorted(names, key=lambda n: (budget.spent() > 100, -len(n), n))
upper = list(map(lambda n: phase("check " + n) or n.upper(), names[:2]))
spent_each = [budget.spent() + i for i in range(2)]
log(f"plan has {len(plan)} batches, spent {budget.spent()}")
return {
    "plan": plan,
    "walk": list(walk(3)),
    "ranked": ranked,
    "upper": upper,
    "spent_each": spent_each,
    "summary": notes["text"],
}
