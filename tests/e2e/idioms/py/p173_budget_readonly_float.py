meta = {"name": "p173", "description": "budget.remaining() is a float (inf without a ceiling); budget.total is read-only"}
left = budget.remaining()
out = {"float": isinstance(left, float), "inf": math.isinf(left), "bigger": left > 10 ** 30,
       "total": budget.total, "spent": budget.spent(), "spent_int": isinstance(budget.spent(), int)}
try:
    budget.total = 5
    out["assign"] = "assigned"
except AttributeError:
    out["assign"] = "AttributeError"
out["after"] = budget.total
out["text"] = f"{budget.remaining()} left"
return out
