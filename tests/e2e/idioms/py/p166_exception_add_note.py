meta = {"name": "exception_add_note", "description": "BaseException.add_note (3.11) on errors a script catches, annotates and re-raises"}

out = []


def step(name, value):
    try:
        return int(value)
    except ValueError as e:
        e.add_note("step: " + name)
        e.add_note("value was " + repr(value))
        raise


try:
    step("parse", "x7")
except ValueError as e:
    out.append([str(e), repr(e), len(e.args)])

e = ValueError("noted")
r = e.add_note("see runbook")
out.append([r, str(e), repr(e)])
for bad in [lambda: e.add_note(3), lambda: e.add_note(), lambda: e.add_note("a", "b")]:
    try:
        bad()
    except TypeError as err:
        out.append(str(err))
k = KeyError("missing")
k.add_note("while loading config")
out.append([str(k), repr(k)])
try:
    try:
        raise RuntimeError("inner")
    except RuntimeError as inner:
        inner.add_note("retry 1 of 3")
        raise ValueError("outer") from inner
except ValueError as outer:
    out.append(str(outer))
return out
