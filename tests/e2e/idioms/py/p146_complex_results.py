meta = {"name": "complex-results", "description": "a complex logged and returned in the result"}
z = complex(1, -2)
log(z)
log(complex(0, 1))
log(complex(-0.0, -0.0))
log([z, complex(2, 0)])
log({"z": z})
log(f"{z}|{z!r}")
return {"z": z, "pure": complex(0, 3), "nested": [z, {"k": complex(0, 0)}], "parts": [z.real, z.imag, abs(complex(3, 4))]}
