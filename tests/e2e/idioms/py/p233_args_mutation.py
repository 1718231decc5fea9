meta = {"name": "j02", "description": "args is a plain dict in the seed's guest"}
out = []
try:
    args["added"] = 1
    out.append(sorted(args))
except TypeError as e:
    out.append(["TypeError", str(e)])
try:
    out.append(args.pop("n"))
except (TypeError, AttributeError) as e:
    out.append(["err", str(e)])
args2 = args
args2.setdefault("z", [])
args2["z"].append(1)
out.append(args)
return out
