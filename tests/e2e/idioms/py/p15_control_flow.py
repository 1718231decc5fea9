meta = {"name": "control_flow", "description": "loops with else, chained comparisons, augmented ops"}

def find_prime_factor(n):
    for d in range(2, n):
        if n % d == 0:
            return d
    else:
        return None

found = [find_prime_factor(n) for n in [15, 13, 49]]
log_lines = []
i = 0
while i < 3:
    i += 1
else:
    log_lines.append(f"while done at {i}")
for x in [1, 2, 3]:
    if x == 2:
        break
else:
    log_lines.append("not reached")
grid_hit = None
for r in range(3):
    for c in range(3):
        if r * c == 2:
            grid_hit = (r, c)
            break
    if grid_hit:
        break
v = 5
chains = [0 < v < 10, 1 < v > 3, v == 5 != 6, not 0 <= v <= 4, "a" < "b" < "c"]
aug = 10
aug += 5
aug -= 3
aug *= 2
aug //= 5
aug **= 2
aug %= 7
bits = 0b1010
bits |= 0b0101
bits &= 0b1100
bits ^= 0b0110
bits <<= 2
bits >>= 1
s = "ab"
s += "c"
s *= 2
lst = [1]
lst += [2]
lst *= 2
conds = ["neg" if v < 0 else "zero" if v == 0 else "pos", (v > 3) and "big" or "small", None or "default", 0 or [] or "last", 3 and 4]
states = []
for n in range(1, 16):
    if n % 15 == 0:
        states.append("FizzBuzz")
    elif n % 3 == 0:
        states.append("Fizz")
    elif n % 5 == 0:
        states.append("Buzz")
    else:
        states.append(n)
total = 0
for k in range(10):
    if k % 2:
        continue
    if k > 6:
        break
    total += k
ids = [None, 1, "x"]
identity = [ids[0] is None, ids[1] is not None, "x" in ids, 2 not in ids, [] == [], 1 == 1.0, True == 1]
return {"found": found, "log_lines": log_lines, "grid_hit": grid_hit, "chains": chains, "aug": aug, "bits": bits, "s": s,
        "lst": lst, "conds": conds, "states": states, "total": total, "identity": identity}
