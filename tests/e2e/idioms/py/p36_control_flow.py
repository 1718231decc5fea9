meta = {"name": "control_flow", "description": "loops with else, early exits, nested breaks, state machines"}

def find_pair(nums, target):
    for i, a in enumerate(nums):
        for b in nums[i + 1:]:
            if a + b == target:
                return (a, b)
    else:
        return None

def first_prime(ns):
    for n in ns:
        if n < 2:
            continue
        for d in range(2, int(n ** 0.5) + 1):
            if n % d == 0:
                break
        else:
            return n
    return -1

transitions = {("idle", "start"): "running", ("running", "pause"): "paused", ("paused", "start"): "running", ("running", "stop"): "done"}
state, trail = "idle", []
for ev in ["start", "pause", "bogus", "start", "stop", "start"]:
    nxt = transitions.get((state, ev))
    if nxt is None:
        trail.append(f"ignored {ev} in {state}")
        continue
    state = nxt
    trail.append(state)
    if state == "done":
        break
n, steps = 27, 0
while n != 1:
    n = n // 2 if n % 2 == 0 else 3 * n + 1
    steps += 1
i = 0
while i < 3:
    i += 1
else:
    wl = "while-else ran"
attempts = []
for attempt in range(1, 6):
    ok = attempt * attempt > 10
    attempts.append(attempt)
    if ok:
        break
grid = [[1, 2], [3, 4], [5, 6]]
found = None
for r, row in enumerate(grid):
    for c, v in enumerate(row):
        if v == 4:
            found = (r, c)
            break
    if found:
        break
x = 15
label = "fizzbuzz" if x % 15 == 0 else "fizz" if x % 3 == 0 else "buzz" if x % 5 == 0 else str(x)
fb = ["FizzBuzz" if k % 15 == 0 else "Fizz" if k % 3 == 0 else "Buzz" if k % 5 == 0 else k for k in range(1, 16)]
truthy = [bool(v) for v in [0, 0.0, "", "0", [], [0], {}, None, -1, " "]]
short = [0 or "default", "" or None, 5 and 6, None and 1, [] or {}, 1 and 0 or 9]
none_cmp = [None is None, 1 is not None, [] == [], not [], not 0]
return {"pair": find_pair([1, 4, 6, 9], 10), "nopair": find_pair([1, 2], 10), "prime": first_prime([1, 4, 9, 11, 13]),
        "state": state, "trail": trail, "collatz": steps, "wl": wl, "attempts": attempts, "found": found, "label": label, "fb": fb,
        "truthy": truthy, "short": short, "none_cmp": none_cmp}
