meta = {"name": "number_attrs", "description": "real, imag, numerator, denominator of int, bool and float values"}

n = 42
x = 2.5
return {"int": [n.real, n.imag, n.numerator, n.denominator, (-7).real], "bool": [True.real, False.imag, True.numerator, True.denominator],
        "float": [x.real, x.imag, (-0.5).real], "sum": sum(v.real for v in [1, 2.5, True])}
