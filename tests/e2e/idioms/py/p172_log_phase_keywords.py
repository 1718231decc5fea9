meta = {"name": "p172", "description": "log(message=...) and phase(title=...) by keyword, as the seed's log(message) / phase(title) take them"}
phase(title="Collect")
log(message="collected 3 items")
log(message={"a": 1})
phase(title=2)
log(message=None)
errors = []
for bad in [lambda: log(msg="x"), lambda: phase(name="x"), lambda: log("a", message="b"), lambda: phase("a", title="b")]:
    try:
        bad()
        errors.append("ok")
    except TypeError:
        errors.append("TypeError")
return errors
