meta = {"name": "latency_stats", "description": "summarize latencies"}

lat = args.get("latencies", [120, 85, 240, 95, 110, 400, 88, 130, 99, 101])
n = len(lat)
mean = sum(lat) / n
s = sorted(lat)
median = (s[n // 2 - 1] + s[n // 2]) / 2 if n % 2 == 0 else s[n // 2]
var = sum((x - mean) ** 2 for x in lat) / (n - 1)
stdev = math.sqrt(var)
def pctl(p):
    k = (n - 1) * p / 100
    f = math.floor(k)
    c = math.ceil(k)
    if f == c:
        return s[int(k)]
    return s[f] + (s[c] - s[f]) * (k - f)
stats = {
    "mean": round(mean, 3), "median": median, "stdev": round(stdev, 4),
    "p90": round(pctl(90), 2), "p99": pctl(99), "min": min(lat), "max": max(lat),
}
misc = [math.hypot(3, 4), math.fsum([0.1] * 10), sum([0.1] * 10), math.prod([1, 2, 3, 4]), math.prod([]),
        math.isclose(0.1 + 0.2, 0.3), math.log10(1000), math.log2(1024), math.log(math.e), round(math.exp(1), 6),
        math.comb(10, 3), math.perm(5, 2), math.factorial(10), math.gcd(84, 36), math.trunc(-3.7), math.copysign(2, -0.0),
        math.fabs(-2), math.isinf(math.inf), math.isnan(float("nan")), math.pi, math.tau, math.degrees(math.pi),
        math.floor(-2.5), math.ceil(-2.5), math.dist([0, 0], [3, 4]), math.sqrt(2), math.pow(2, 0.5), math.fmod(-7, 3),
        math.isqrt(99), math.atan2(1, 1), math.sin(0), math.cos(0)]
rounding = [round(0.5), round(1.5), round(2.5), round(-0.5), round(2.675, 2), round(1234.5678, -2), round(7, 1), round(0.125, 2), round(0.375, 2)]
ints = [7 // 2, -7 // 2, 7 % 3, -7 % 3, 7 % -3, divmod(-7, 2), divmod(7.5, 2), 2 ** 100, pow(3, 4, 5), abs(-0.0), int(-3.9), int("  42 "), int("ff", 16), int("0b101", 0), float("1e3"), float(" -2.5 ")]
conv = [format(10, "b"), oct(8), hex(255), hex(-1), chr(65), ord("a"), 10 / 4, 10 / 5, 2 ** -1, 1e16, 1 / 3, 0.1 + 0.2, -0.0, 1e-7, 123456789012345678.0, 5e-324]
return {"stats": stats, "misc": misc, "rounding": rounding, "ints": ints, "conv": conv}
