meta = {"name": "percent_c_errors", "description": "render status glyphs with %c and report the bad ones"}

glyphs = []
problems = []
for code in [72, 105, True, 0x263A, "x", "xy", 1.5, -1, 0x110000, None]:
    try:
        glyphs.append("%c" % code)
    except (TypeError, OverflowError) as e:
        problems.append([repr(code), "overflow" if isinstance(e, OverflowError) else "type", str(e)])
log(f"{len(glyphs)} glyphs, {len(problems)} problems")
return {"glyphs": glyphs, "problems": problems}
