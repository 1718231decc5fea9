meta = {"name": "bigint_round_math", "description": "ints beyond 64 bits in round(), math.gcd/lcm/perm/comb/ldexp and enumerate(start=)"}

B = 2 ** 70
micro = 10 ** 21 + 123456789
out = {}


def attempt(f):
    try:
        return repr(f())
    except Exception as e:
        return repr(e)


out["round"] = [round(B), round(-B), round(10 ** 20), round(micro, -6), round(-micro, -3), round(B, 2), round(B, -100),
                round(15 * 10 ** 20 + 5 * 10 ** 19, -20), round(25 * 10 ** 19, -20), round(-25 * 10 ** 19, -20), round(10 ** 25 + 5, -1)]
out["round_types"] = [isinstance(round(B), int), isinstance(round(B, -3), int), round(B) == B]
total_micros = sum([B, 3 * 10 ** 18, 7])
out["cents"] = [round(total_micros, -4) // 10 ** 4, round(total_micros / 10 ** 6, 2)]
out["gcd"] = [math.gcd(B, 6), math.gcd(B, B * 3), math.gcd(-B, 10 ** 21), math.gcd(3, 5, B), math.gcd(B), math.gcd(0, -B)]
out["lcm"] = [math.lcm(B, 6), math.lcm(3, 5, B), math.lcm(B, 0, 3), math.lcm(2 ** 40, 2 ** 40 + 1, 2 ** 41 + 1), math.lcm(-B)]
out["perm_comb"] = [math.perm(B, 1), math.perm(B, 3), math.comb(B, 2), math.comb(B, B - 1), math.comb(B, B + 1), math.perm(5, B),
                    attempt(lambda: math.comb(B, -B)), attempt(lambda: math.comb(-B, 1)), attempt(lambda: math.perm(-B, 1)),
                    attempt(lambda: math.perm(-B)), attempt(lambda: math.perm(B, 2 ** 63)), attempt(lambda: math.comb(B, 2 ** 63))]
out["ldexp"] = [attempt(lambda: math.ldexp(1, B)), math.ldexp(1, -B), math.ldexp(0.0, B), attempt(lambda: math.ldexp(-2.5, 2 ** 64)), math.ldexp(3, 10)]
out["enumerate"] = [list(enumerate("ab", start=B)), list(enumerate(["x"], -B)), [i for i, _ in enumerate(range(3), start=2 ** 63 - 2)]]
return out
