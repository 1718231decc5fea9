meta = {"name": "percent_bare_conversions", "description": "bare %s / %d / %i / %u of strings, ints, bools, floats, big ints, None and containers, beside flagged ones"}

vals = ["abc", "", "é✓", 0, -7, 12345678901234, True, False, 2.5, -0.0, 2**80, -(2**70), None, [1, "a"], (1,), {"k": 1}]
out = []
for v in vals:
    row = ["%s" % (v,), "[%r]" % (v,)]
    for conv in ["%d", "%i", "%u", "%5d", "%-4s|", "%+d", "%05d", "%.2s"]:
        try:
            row.append(conv % (v,))
        except TypeError as e:
            row.append("TypeError: " + str(e))
    out.append(row)
lines = []
for i in range(3000):
    lines.append("%s=%d;%s" % ("k" + str(i), i * -3, str(i % 7)))
out.append([len(lines), lines[0], lines[-1], "%s%%%d" % ("x", 5), "%(a)s-%(b)d" % {"a": "A", "b": 9}])
try:
    "%d %d" % (1,)
except TypeError as e:
    out.append(str(e))
try:
    "%s" % (1, 2)
except TypeError as e:
    out.append(str(e))
return out
