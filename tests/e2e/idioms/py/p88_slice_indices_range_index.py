meta = {"name": "slice_indices_range_index", "description": "slice.indices(length), range.index(x) and range.count(x), as CPython"}

# Pagination: a page as a slice, normalized against the result count.
rows = ["r%d" % i for i in range(23)]
page_size = 5
pages = []
for page in range(0, 6):
    window = slice(page * page_size, (page + 1) * page_size)
    start, stop, step = window.indices(len(rows))
    pages.append({"page": page, "bounds": [start, stop, step], "rows": rows[start:stop:step]})

shapes = [slice(None), slice(None, None, -1), slice(-3, None), slice(2, -2, 2), slice(-100, 100),
          slice(10, 2, -3), slice(None, -50, -1), slice(5, None, -2), slice(True, 4)]
normalized = [list(s.indices(8)) for s in shapes] + [list(slice(3, 9).indices(0)), list(slice(-2, None).indices(True))]

# Slot lookup in a stepped range of offsets.
offsets = range(0, 100, 20)
back = range(50, 0, -7)
found = [offsets.index(40), offsets.index(80), back.index(43), back.index(1), offsets.index(True - 1),
         offsets.index(60.0), offsets.count(20), offsets.count(21), offsets.count(20.0), offsets.count("20"),
         back.count(8), range(0).count(0)]

errs = []
for call in [lambda: offsets.index(30), lambda: offsets.index(2 ** 70), lambda: offsets.index("a"),
             lambda: offsets.index(30.0), lambda: offsets.index(True), lambda: offsets.index(),
             lambda: slice(1, 2).indices(-1), lambda: slice(1, 2, 0).indices(3), lambda: slice(1, 2).indices("x"),
             lambda: slice(1, 2).indices(), lambda: offsets.count(1, 2)]:
    try:
        errs.append(call())
    except ValueError as exc:
        errs.append("ValueError: " + str(exc))
    except TypeError as exc:
        errs.append("TypeError: " + str(exc))
return {"pages": pages, "normalized": normalized, "found": found, "errors": errs}
