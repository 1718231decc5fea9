meta = {"name": "complex-errors", "description": "complex misuse raises CPython's errors"}
z = complex(1, 2)
cases = [
    lambda: z < complex(2, 0),
    lambda: z > 1,
    lambda: sorted([z, complex(0, 1)]),
    lambda: max(z, complex(0, 1)),
    lambda: z // 2,
    lambda: z % 2,
    lambda: divmod(z, 2),
    lambda: int(z),
    lambda: float(z),
    lambda: round(z),
    lambda: z / 0,
    lambda: z / complex(0, 0),
    lambda: complex(0, 0) ** -1,
    lambda: complex(0, 0) ** complex(0, 1),
    lambda: complex("1", 2),
    lambda: complex(1, "2"),
    lambda: complex(None),
    lambda: complex(1, None),
    lambda: complex("x"),
    lambda: complex("1 + 2j"),
    lambda: complex(""),
    lambda: json.dumps(z),
    lambda: json.dumps({"z": [z]}),
    lambda: z + "s",
    lambda: z.nope,
    lambda: [1, 2][complex(0, 0)],
    lambda: "%d" % z,
]
out = []
for f in cases:
    try:
        out.append(["ok", repr(f())])
    except Exception as e:
        out.append(["raised", repr(e)])
return out
