meta = {
    "name": "big_int_float_ops",
    "description": "Ledger maths mixing ints beyond 64 bits with floats: //, %, divmod, **, math.floor, and CPython's OverflowError past the float range",
    "phases": ["ledger"],
}

phase("ledger")
entries = (await agent("hermes.ledger.totals", {}))["totals"]
rows = []
for e in entries:
    units = e["units"] * 2 ** 40
    rate = e["rate"]
    rows.append({
        "units": units, "per_rate": units // rate, "rem": units % rate, "dm": list(divmod(units, rate)),
        "floor": math.floor(units) == units, "ceil": math.ceil(-units) == -units, "trunc": math.trunc(units) == units,
        "scaled": units * rate, "share": rate / units, "back": rate // units, "root": units ** 0.5,
    })
errors = []
huge = 10 ** 400
for name, thunk in (("mul", lambda: huge * 1.5), ("add", lambda: 0.5 + huge), ("div", lambda: huge / 2.0), ("floordiv", lambda: huge // 3.0),
                    ("mod", lambda: huge % 2.0), ("pow", lambda: 2.0 ** huge), ("divmod", lambda: divmod(huge, 7.0))):
    try:
        thunk()
        errors.append([name, "ok"])
    except OverflowError as e:
        errors.append([name, str(e)])
log(f"{len(rows)} rows, first per_rate {rows[0]['per_rate']}")
return {"rows": rows, "errors": errors, "exact": [math.floor(huge) == huge, math.ceil(huge) - huge]}
