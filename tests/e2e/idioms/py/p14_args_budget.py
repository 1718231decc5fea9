meta = {"name": "args_budget", "description": "defaults, truthiness and the budget"}

script_args = args or {}
opts = script_args.get("options") or {}
limit = int(opts.get("limit", 10))
targets = list(script_args.get("targets", []))
dry_run = bool(script_args.get("dry_run"))
mode = script_args.get("mode") or "fast"
thresholds = {**{"warn": 0.5, "fail": 0.9}, **script_args.get("thresholds", {})}
remaining = budget.remaining()
unlimited = remaining == math.inf
can_afford = remaining > 50_000 if budget.total else True
truthy = [bool(x) for x in [0, 0.0, "", "0", [], [0], {}, None, " ", -1]]
none_checks = [script_args.get("absent") is None, script_args.get("zero") == 0, script_args.get("zero") is not None]
kinds = [isinstance(script_args.get("zero"), int), isinstance(script_args.get("ratio"), float), isinstance(targets, list),
         isinstance(True, int), isinstance(script_args.get("nested"), dict)]
nested_get = script_args.get("nested", {}).get("deep", {}).get("value", "fallback")
chosen = [t for t in targets if t.startswith(script_args.get("prefix", ""))][:limit]
return {"limit": limit, "targets": targets, "dry_run": dry_run, "mode": mode, "thresholds": thresholds,
        "unlimited": unlimited, "can_afford": can_afford, "spent": budget.spent(), "total": budget.total, "truthy": truthy,
        "none_checks": none_checks, "kinds": kinds, "nested_get": nested_get, "chosen": chosen, "args_keys": sorted(script_args)}
