meta = {"name": "range_attrs_bit_count", "description": "range.start/stop/step and int.bit_count, as in CPython"}

r = range(3, 30, 4)
pages = range(0, 95, 20)
flags = [0, 1, 7, 255, 1024, -5, 2 ** 40 + 3]
return {"r": [r.start, r.stop, r.step], "default": [range(5).start, range(5).step, range(2, 9).stop],
        "pages": [pages.step, len(pages), pages[-1]], "bits": [n.bit_count() for n in flags], "true": True.bit_count()}
