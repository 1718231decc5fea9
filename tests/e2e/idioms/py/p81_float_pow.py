meta = {"name": "float_pow", "description": "float ** int and pow(float, int) round as CPython's libm pow"}

rates = [1.07 ** 5, pow(1.07, 5), 1000 * 1.07 ** 10, 1.1 ** 3, 0.9 ** 7, 2.5 ** -3, pow(1.05, -4)]
growth = [round(100 * 1.015 ** n, 10) for n in range(0, 40, 7)]
ints = [2 ** -3, 10 ** -2, 3 ** -5, True ** -1]
overflow = None
try:
    pow(10.0, 400)
except OverflowError as e:
    overflow = str(e)
return {"rates": rates, "growth": growth, "ints": ints, "overflow": overflow, "exact": 1.07 ** 5 == 1.4025517307000004}
