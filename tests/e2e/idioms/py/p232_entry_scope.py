meta = {"name": "j01", "description": "the body is a function: late-bound names and locals shadowing globals"}
out = {}
def f():
    return later
try:
    f()
except NameError as e:
    out["free_var"] = str(e)
later = 1
out["after"] = f()
def uses_log():
    try:
        return log
    except NameError as e:
        return str(e)
try:
    x = args.get("n", 1)
    out["args_read"] = x
except NameError as e:
    out["args_read"] = str(e)
if False:
    args = {}
try:
    del gone
except NameError as e:
    out["del_unbound"] = str(e)
gone = 2
del gone
try:
    gone
except NameError as e:
    out["after_del"] = str(e)
return out
