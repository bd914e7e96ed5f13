#!/usr/bin/env python3
"""A national register for bench/sites: COUNT GeoJSON features over Great Britain, written to OUT.

Deterministic (seed 37): sites cluster around 2,000 towns of Zipf-like sizes; one in ten is an
outline (a Polygon of 5 to 40 positions), the rest points. Properties as a national list has them:
ListEntry, Name, Designation, Grade. Streamed out: memory stays small whatever COUNT.

    bench/sites-fixture.py OUT [COUNT]
"""
import bisect
import itertools
import json
import math
import random
import sys

out = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 400_000
rng = random.Random(37)
towns = [(rng.uniform(50.1, 58.5), rng.uniform(-5.6, 1.6)) for _ in range(2000)]
# Zipf-like sizes: the largest town holds about 5% of the register, as London holds of England's list.
cumulative = list(itertools.accumulate(1 / (k + 1) ** 0.8 for k in range(len(towns))))
designations = ["LB"] * 90 + ["SM"] * 5 + ["LPW"] * 2 + ["RGP", "CA", "RB"]
grades = ["II"] * 90 + ["II*"] * 7 + ["I"] * 3
words = ["Church", "Chapel", "Barn", "Mill", "House", "Cottage", "Bridge", "Cross", "Farmhouse", "Hall", "Lodge",
         "Tower", "Wall", "Milestone", "Pump", "Almshouses", "Inn", "Rectory", "Gatehouse", "Dovecote"]

with open(out, "w") as f:
    f.write('{"type": "FeatureCollection", "name": "register",\n'
            '"crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:OGC:1.3:CRS84"}},\n"features": [\n')
    for i in range(count):
        lat0, lon0 = towns[bisect.bisect(cumulative, rng.random() * cumulative[-1])]
        lat = round(lat0 + rng.gauss(0, 0.05), 7)
        lon = round(lon0 + rng.gauss(0, 0.08), 7)
        designation = rng.choice(designations)
        props = {"ListEntry": 1_000_000 + i, "Name": f"{rng.choice(words)} at {i % 997} {rng.choice(words)} Lane",
                 "Designation": designation}
        if designation in ("LB", "LPW"):
            props["Grade"] = rng.choice(grades)
        if rng.random() < 0.1:
            n = rng.randint(5, 40)
            r = rng.uniform(0.0003, 0.003)
            ring = [[round(lon + r * 1.6 * math.cos(2 * math.pi * k / n), 7), round(lat + r * math.sin(2 * math.pi * k / n), 7)]
                    for k in range(n)]
            ring.append(ring[0])
            geometry = {"type": "Polygon", "coordinates": [ring]}
        else:
            geometry = {"type": "Point", "coordinates": [lon, lat]}
        f.write(json.dumps({"type": "Feature", "properties": props, "geometry": geometry}, separators=(",", ":")))
        f.write(",\n" if i < count - 1 else "\n")
    f.write("]}\n")
