meta = {"name": "m06", "description": "format() with a spec that is not a str"}
try:
    r = format(3.5, 2)
except TypeError as e:
    r = str(e)
return r
