meta = {"name": "math_module", "description": "the math helpers the seed injects"}

xs = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]
mean = sum(xs) / len(xs)
var = sum((x - mean) ** 2 for x in xs) / len(xs)
sd = math.sqrt(var)
r = {
    "stats": [mean, var, sd, math.fsum(xs), math.prod([1, 2, 3, 4]), math.isclose(sd, 2.0)],
    "round": [math.floor(-2.5), math.ceil(-2.5), math.trunc(-2.7), math.floor(2.9999999999999996), math.ceil(1e-300)],
    "logs": [math.log(100, 10), math.log10(1000), math.log2(1024), math.log(math.e), math.log1p(1e-10), math.exp(1), math.expm1(1e-10), math.log(8, 2)],
    "trig": [math.sin(math.pi / 6), math.cos(0), math.tan(math.pi / 4), math.atan2(1, 1), math.degrees(math.pi), math.radians(180), math.hypot(3, 4), math.asin(1), math.acos(0.5)],
    "ints": [math.factorial(20), math.comb(10, 3), math.perm(5, 2), math.gcd(12, 18), math.gcd(0, 0), math.lcm(4, 6), math.isqrt(99), math.isqrt(10 ** 12), math.gcd(12, 18, 30), math.lcm()],
    "misc": [math.fabs(-3), math.copysign(3, -0.0), math.fmod(-7, 3), math.remainder(7, 3), math.modf(3.75), math.frexp(8.0), math.ldexp(0.5, 4), math.pow(2, 0.5), math.cbrt(8), math.exp2(10)],
    "consts": [math.pi, math.e, math.tau, math.inf > 1e308, math.isnan(math.nan), math.isinf(-math.inf), math.isfinite(1.0)],
    "dist": [math.dist([0, 0], [3, 4]), math.sqrt(2) ** 2, math.ulp(1.0), math.nextafter(1.0, 2.0)],
    "pct": [round(math.floor(0.95 * 19) / 19, 4), math.ceil(len(xs) * 0.9) - 1],
}
errs = []
for f in [lambda: math.sqrt(-1), lambda: math.log(0), lambda: math.factorial(-1), lambda: math.comb(-1, 2), lambda: math.exp(1000), lambda: math.factorial(2.5)]:
    try:
        f()
        errs.append("ok")
    except (ValueError, OverflowError, TypeError) as e:
        errs.append(repr(e))
r["errs"] = errs
return r
