meta = {"name": "number_parts", "description": "the number protocol of ints past 64 bits, bools and floats: numerator, denominator, real, imag, conjugate, as_integer_ratio"}
out = []
big = 2 ** 70
for f in [lambda: (5).numerator, lambda: (5).denominator, lambda: (5).real, lambda: (5).imag, lambda: (5).conjugate(), lambda: big.numerator, lambda: big.denominator, lambda: big.real, lambda: big.imag, lambda: big.conjugate(), lambda: big.as_integer_ratio(), lambda: (1180591620717411303424).numerator, lambda: True.numerator, lambda: True.conjugate(), lambda: True.as_integer_ratio(), lambda: (2.5).real, lambda: (2.5).imag, lambda: (2.5).conjugate(), lambda: (7).as_integer_ratio(), lambda: (-7).as_integer_ratio(), lambda: (7).bit_count(), lambda: (7).conjugate(1), lambda: (2.5).conjugate(1)]:
    try:
        out.append(f())
    except Exception as e:
        out.append(str(e))
return out
