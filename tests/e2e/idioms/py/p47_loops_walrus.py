meta = {"name": "loops_walrus", "description": "while/else, for/else, walrus, break and continue in try/finally"}

trace = []
n = 0
while n < 3:
    n += 1
else:
    trace.append(f"while-else ran at {n}")

n = 0
while True:
    n += 1
    if n == 4:
        break
else:
    trace.append("never")

for i in range(5):
    if i == 7:
        break
else:
    trace.append("for-else ran")

for i in range(5):
    if i == 2:
        trace.append("found 2")
        break
else:
    trace.append("never 2")

for i in []:
    pass
else:
    trace.append("empty for-else")

queue = [5, 3, 0, 8]
while (item := queue.pop(0) if queue else None) is not None:
    if item == 0:
        trace.append("zero skipped")
        continue
    trace.append(f"item {item}")

data = [1, 7, 3, 12, 5]
big = [y for x in data if (y := x * 3) > 10]
trace.append(f"last y {y}")
if (count := len(big)) > 2:
    trace.append(f"count {count}")

for i in range(4):
    try:
        if i == 1:
            continue
        if i == 3:
            break
        trace.append(f"body {i}")
    finally:
        trace.append(f"finally {i}")

def first_even(xs):
    for x in xs:
        try:
            if x % 2 == 0:
                return x
        finally:
            trace.append(f"checked {x}")
    return None

trace.append(f"first_even {first_even([3, 5, 6, 8])}")

total = 0
for i in range(3):
    for j in range(3):
        if j > i:
            break
        if (i + j) % 2:
            continue
        total += i * 10 + j
trace.append(f"total {total}")

attempt = 0
while attempt < 5:
    attempt += 1
    if attempt % 2:
        continue
    if attempt == 4:
        trace.append("stop at 4")
        break
else:
    trace.append("exhausted")

a, *rest = [1, 2, 3, 4]
*init, last = "xyz"
(p, q), r = (1, 2), 3
first, *_, final = range(10)
trace.append(f"{a} {rest} {init} {last} {p}{q}{r} {first} {final}")
x = y = z = 0
x += 1
trace.append(f"{x}{y}{z}")
i, j = 0, 1
i, j = j, i
trace.append(f"swap {i} {j}")
for k, (u, v) in enumerate([(1, 2), (3, 4)]):
    trace.append(f"{k}:{u + v}")
return trace
