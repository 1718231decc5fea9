#!/usr/bin/env python3
"""Generates harnesses/js-runtime/src/tz_data.js: the UTC offsets, their
transitions (1970-2037) and ICU's English names of the time zones the JS
runtime's `Intl.DateTimeFormat` / `toLocaleString` know.

Offsets and transitions come from Python's zoneinfo (the system's tzdata,
or `pip install tzdata`); the names (`timeZoneName` short / long /
shortGeneric / longGeneric in en-US and en-GB) and the canonical IDs
from Node (ICU), asked for each period between transitions, so the table
writes what Node writes. Usage: python3 scripts/gen-tz.py [out.js]
"""
import datetime as dt
import json
import subprocess
import sys
import zoneinfo

ZONES = """
America/New_York America/Chicago America/Denver America/Phoenix America/Los_Angeles America/Anchorage
Pacific/Honolulu America/Toronto America/Vancouver America/Mexico_City America/Sao_Paulo
America/Argentina/Buenos_Aires America/Bogota America/Lima America/Santiago America/Halifax
America/St_Johns America/Caracas
Europe/London Europe/Dublin Europe/Lisbon Europe/Paris Europe/Berlin Europe/Madrid Europe/Rome
Europe/Amsterdam Europe/Brussels Europe/Zurich Europe/Vienna Europe/Stockholm Europe/Oslo
Europe/Copenhagen Europe/Helsinki Europe/Warsaw Europe/Prague Europe/Budapest Europe/Bucharest
Europe/Athens Europe/Istanbul Europe/Kyiv Europe/Moscow Atlantic/Reykjavik
Africa/Cairo Africa/Johannesburg Africa/Lagos Africa/Nairobi Africa/Casablanca
Asia/Dubai Asia/Karachi Asia/Kolkata Asia/Dhaka Asia/Bangkok Asia/Jakarta Asia/Singapore
Asia/Hong_Kong Asia/Shanghai Asia/Taipei Asia/Seoul Asia/Tokyo Asia/Manila Asia/Jerusalem
Asia/Riyadh Asia/Tehran Asia/Kathmandu Asia/Ho_Chi_Minh
Australia/Perth Australia/Adelaide Australia/Brisbane Australia/Sydney Australia/Melbourne
Pacific/Auckland
""".split()
# Other names V8 takes for these zones (resolved by ICU to a canonical ID).
ALIASES = """
America/Buenos_Aires Asia/Calcutta Europe/Kiev US/Eastern US/Central US/Mountain US/Arizona
US/Pacific US/Alaska US/Hawaii Canada/Eastern Canada/Pacific GB Europe/Belfast Eire Portugal
Turkey Asia/Istanbul W-SU Egypt Japan ROK PRC ROC Hongkong Singapore Asia/Saigon Asia/Katmandu
Israel Iran Australia/ACT Australia/NSW Australia/Victoria Australia/West Australia/South
Australia/Queensland NZ Brazil/East Mexico/General Chile/Continental Iceland Asia/Tel_Aviv

""".split()
START, END = 0, int(dt.datetime(2038, 1, 1, tzinfo=dt.timezone.utc).timestamp())

NODE_NAMES = r"""
const [zones, aliases, queries] = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const canon = {};
for (const z of [...zones, ...aliases]) {
  try { canon[z] = new Intl.DateTimeFormat('en-US', { timeZone: z }).resolvedOptions().timeZone; } catch { canon[z] = null; }
}
const name = (loc, z, t, style) => new Intl.DateTimeFormat(loc, { timeZone: z, timeZoneName: style })
  .formatToParts(new Date(t * 1000)).find((p) => p.type === 'timeZoneName').value;
const names = queries.map(([z, t]) => {
  const row = [];
  for (const style of ['short', 'long', 'shortGeneric', 'longGeneric']) for (const loc of ['en-US', 'en-GB']) row.push(name(loc, z, t, style));
  row.push(name('en-US', z, t, 'longOffset'));
  return row;
});
console.log(JSON.stringify({ canon, names }));
"""


def periods(zone):
    """[(start, offset_minutes)] from 1970 to 2037: a day's steps, each
    change found to the minute."""
    z = zoneinfo.ZoneInfo(zone)

    def key(t):
        d = dt.datetime.fromtimestamp(t, dt.timezone.utc).astimezone(z)
        return (int(d.utcoffset().total_seconds()) // 60, d.dst(), d.tzname())

    out = [(START, key(START))]
    t = START
    while t < END:
        n = min(t + 86400, END)
        if key(n) != key(t):
            lo, hi = t, n  # key(lo) != key(hi): the first minute of the new key
            while hi - lo > 60:
                mid = lo + (hi - lo) // 120 * 60
                if key(mid) == key(lo):
                    lo = mid
                else:
                    hi = mid
            out.append((hi, key(hi)))
        t = n
    return out


def gmt(offset, long):
    """ICU's `GMT+5:30` / `GMT+05:30` (long), `GMT+0` for zero."""
    sign = "+" if offset >= 0 else "-"
    h, m = divmod(abs(offset), 60)
    if long:
        return f"GMT{sign}{h:02}:{m:02}"
    return f"GMT{sign}{h}" + (f":{m:02}" if m else "")


def main():
    out_path = sys.argv[1] if len(sys.argv) > 1 else "harnesses/js-runtime/src/tz_data.js"
    zone_periods = {z: periods(z) for z in ZONES}
    queries = []
    for z, ps in zone_periods.items():
        for i, (start, _) in enumerate(ps):
            end = ps[i + 1][0] if i + 1 < len(ps) else END
            queries.append([z, (start + end) // 2])
    res = json.loads(subprocess.run(["node", "-e", NODE_NAMES], input=json.dumps([ZONES, ALIASES, queries]),
                                    capture_output=True, text=True, check=True).stdout)
    names = iter(res["names"])
    table = {}
    for z, ps in zone_periods.items():
        types, entries, prev = [], [], START
        for start, (offset, _, _) in ps:
            row = next(names)
            icu_long_offset = row[8]
            if icu_long_offset != gmt(offset, True):
                print(f"warning: {z} at {start}: zoneinfo {gmt(offset, True)}, ICU {icu_long_offset}", file=sys.stderr)
            # Names equal to the computed `GMT…` forms are left empty; an
            # en-GB name equal to en-US's is left empty too.
            short_us, short_gb, long_us, long_gb, sg_us, sg_gb, lg_us, lg_gb = row[:8]
            t = [offset,
                 "" if short_us == gmt(offset, False) else short_us,
                 "" if short_gb == short_us else short_gb,
                 "" if long_us == gmt(offset, True) else long_us,
                 "" if sg_us == gmt(offset, False) else sg_us,
                 "" if sg_gb == sg_us else sg_gb,
                 "" if lg_us == gmt(offset, True) else lg_us]
            assert long_gb == long_us and lg_gb == lg_us, (z, row)
            while t and t[-1] == "":
                t.pop()
            if t not in types:
                types.append(t)
            i = types.index(t)
            if entries and entries[-1][0] == i:
                continue  # same offset and names: no transition for ICU
            entries.append((i, start - prev))
            prev = start
        # Each transition: its type's index (one base-36 digit), then the
        # minutes since the previous one (base 36); the first is at 1970.
        # The distinct ones are listed once, the sequence is one character
        # (U+0100 + its place in that list) a transition.
        tokens = [base36(i) + base36(d // 60) for i, d in entries]
        distinct = list(dict.fromkeys(tokens))
        table[z] = [types, ",".join(distinct), "".join(chr(0x100 + distinct.index(t)) for t in tokens)]
    canon = res["canon"]
    links = {}
    for z in ZONES + ALIASES:
        c = canon.get(z)
        if c is None:
            print(f"warning: Node does not know {z}", file=sys.stderr)
            continue
        data = z if z in table else next((y for y in ZONES if canon.get(y) == c), None)
        if data is None:
            print(f"warning: no data for {z} ({c})", file=sys.stderr)
            continue
        # name (lower case) -> [canonical ID, data zone]
        links[z.lower()] = [c] if data == c else [c, data]
    with open(out_path, "w") as f:
        f.write("// Generated by scripts/gen-tz.py (zoneinfo offsets, ICU names from Node): do not edit.\n")
        f.write("// Per zone: [types, transitions, sequence]; a type is [offset minutes, short en-US,\n")
        f.write("// short en-GB, long, shortGeneric en-US, shortGeneric en-GB, longGeneric] (\"\" for ICU's\n")
        f.write("// GMT forms or the en-US name); a transition is a type index (base 36) and the minutes\n")
        f.write("// since the one before (base 36), the first at 1970-01-01; the sequence has a character\n")
        f.write("// (U+0100 + its index in the transitions) a transition. Names: lower case -> [ID, data zone].\n")
        f.write("globalThis.__hwf_tz = {\n  zones: ")
        f.write(json.dumps(table, ensure_ascii=False, separators=(",", ":")).replace('],"', '],\n    "'))
        f.write(",\n  names: ")
        f.write(json.dumps(links, ensure_ascii=False, separators=(",", ":")))
        f.write(",\n};\n")


def base36(n):
    s = ""
    while True:
        n, r = divmod(n, 36)
        s = "0123456789abcdefghijklmnopqrstuvwxyz"[r] + s
        if n == 0:
            return s


if __name__ == "__main__":
    main()
