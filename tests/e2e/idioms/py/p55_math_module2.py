meta = {"name": "math_module2", "description": "math functions used for scores, ratios and estimates"}

vals = [2.5, -2.5, 3.7, -3.2, 0.0]
out = {
    "floor_ceil": [[math.floor(v), math.ceil(v), math.trunc(v)] for v in vals],
    "fsum": [math.fsum([0.1] * 10), sum([0.1] * 10), math.fsum([1e100, 1.0, -1e100])],
    "prod": [math.prod([1, 2, 3, 4]), math.prod([]), math.prod([0.5, 4]), math.prod(range(1, 6), start=2)],
    "comb_perm": [math.comb(10, 3), math.perm(5, 2), math.perm(4), math.comb(5, 7), math.factorial(20), math.factorial(25)],
    "gcd_lcm": [math.gcd(12, 18), math.gcd(0, 5), math.gcd(-4, 6), math.gcd(12, 18, 27), math.lcm(4, 6), math.lcm(2, 3, 4), math.gcd()],
    "logs": [math.log(8, 2), math.log(100, 10), math.log10(1000), math.log2(1024), math.log(math.e), math.log1p(0), math.exp(0), math.log(2 ** 100)],
    "isclose": [math.isclose(0.1 + 0.2, 0.3), math.isclose(1.0, 1.001, rel_tol=1e-2), math.isclose(0.0, 1e-10), math.isclose(0.0, 1e-10, abs_tol=1e-9)],
    "misc": [math.copysign(3, -0.0), math.fmod(-7, 3), math.fabs(-2), list(math.modf(3.75)), list(math.frexp(8.0)), math.ldexp(0.5, 4), math.hypot(3, 4), math.hypot(1, 2, 2)],
    "angles": [math.degrees(math.pi), math.radians(180), round(math.sin(math.pi / 6), 10), round(math.cos(0), 3), math.atan2(1, 1) * 4, round(math.tan(math.pi / 4), 12)],
    "consts": [math.pi, math.e, math.tau, math.inf > 10 ** 300, math.isnan(math.nan), math.isinf(-math.inf), math.isfinite(1e308)],
    "sqrt_pow": [math.sqrt(16), math.sqrt(2), math.pow(2, 0.5), math.pow(2, 10), math.isqrt(17), math.isqrt(10 ** 12), 16 ** 0.5, (-8) ** (1 / 3) if False else 0],
    "nan_cmp": [math.nan == math.nan, math.nan != math.nan, max(1, 2) if math.nan else 0, math.inf - math.inf != 0],
    "dist": [math.dist([0, 0], [3, 4]), math.dist((1, 1, 1), (2, 2, 2))],
    "floor_big": [math.floor(1e20), math.ceil(-1e20), math.floor(2 ** 70 / 3)],
    "exp_round": [round(math.exp(1), 6), round(math.exp(-1), 6), round(math.expm1(1e-5), 12)],
    "erf_gamma": [round(math.erf(1), 10), math.gamma(5), round(math.lgamma(10), 8)],
}
scores = [7, 8, 9, 10, 6]
mean = sum(scores) / len(scores)
var = sum((s - mean) ** 2 for s in scores) / (len(scores) - 1)
out["stats"] = {"mean": mean, "var": var, "std": math.sqrt(var), "std_r": round(math.sqrt(var), 3), "median": sorted(scores)[len(scores) // 2], "ceil_half": math.ceil(len(scores) / 2)}
return out
