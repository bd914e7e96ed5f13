#!/usr/bin/env python3
"""Who held the CPU while /healthz waited, from a `perf sched` recording around one
`bench/uploads.sh healthz 1` run (docs/BENCHMARKS.md "Photo uploads against /healthz"):

    perf sched record -a -o sched.data -- sleep 28 &   # then, at once:
    bench/uploads.sh healthz 1
    perf sched timehist -i sched.data > sched.txt
    bench/sched-blame.py sched.txt

For the probe (bench/load.py's "healthz-probe" process) and for the server's MHD threads, while the
"uploader" threads run: how many wake-ups waited more than 0.5 ms for a CPU, and what ran on that CPU
meanwhile, summed by who: other processes, the server's decoding threads (libvips worker,
har-photos), its MHD threads, its other threads, the uploading clients.
"""
import collections
import re
import sys

rows = []
for line in open(sys.argv[1]):
    m = re.match(r"\s*([\d.]+)\s+\[(\d+)\]\s+(.+?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$", line)
    if not m:
        continue
    ids = re.search(r"\[(\d+)(?:/(\d+))?\]", m[3])
    pid = (ids.group(2) or ids.group(1)) if ids else "?"
    # time a run ended, CPU, thread name, process id, wait for a CPU before it (ms), its length (ms)
    rows.append((float(m[1]), int(m[2]), re.sub(r"\[.*", "", m[3]), pid, float(m[5]), float(m[6])))
uploads = [r for r in rows if r[2] == "uploader"]
if not uploads:
    sys.exit("sched-blame: no uploader threads in this recording")
start, end = min(r[0] for r in uploads), max(r[0] for r in uploads)
uploaders = uploads[0][3]
server = collections.Counter(r[3] for r in rows if r[2] == "MHD-worker" and start <= r[0] <= end).most_common(1)[0][0]


def who(name, pid):
    if pid == server:
        return {"libvips worker": "server decoding", "har-photos": "server decoding",
                "MHD-worker": "server MHD"}.get(name, "server other")
    if pid == uploaders:
        return "uploaders"
    return "probe" if name == "healthz-probe" else "other processes"


runs = collections.defaultdict(list)
for t, cpu, name, pid, delay, run in rows:
    runs[cpu].append((t - run / 1000, t, who(name, pid)))
for waiter in ["healthz-probe", "MHD-worker"]:
    held = collections.defaultdict(float)
    waits = slow = 0
    for t, cpu, name, pid, delay, run in rows:
        if name != waiter or not start <= t <= end or (waiter == "MHD-worker" and pid != server):
            continue
        waits += 1
        if delay <= 0.5:
            continue
        slow += 1
        began, ended = t - (run + delay) / 1000, t - run / 1000
        for s, e, kind in runs[cpu]:
            overlap = min(e, ended) - max(s, began)
            if overlap > 0:
                held[kind] += overlap * 1000
    print("%s: %d of %d wake-ups waited > 0.5 ms; meanwhile on that CPU: %s" % (
        waiter, slow, waits, ", ".join("%s %.0f ms" % kv for kv in sorted(held.items(), key=lambda kv: -kv[1]))))
