#!/usr/bin/env python3
"""A busy day: N volunteers file a report at once against a running `har serve` and its embedded local
platform, each from its own loopback address (127.0.0.x, so that the per-address sign-in limiter and
connection limits see N people, not one). Each volunteer, as the pages do it without a browser:
GET /signin, POST /signin (a new account on the local platform), GET /reports, GET /reports/new,
three photos of ~1.5 MB POSTed to /api/drafts/{id}/photos with the page's CSRF token, GET
/reports/new/submit, POST it, GET /reports. Then the script waits until the platform's database holds
every report with its three photos, and checks each arrived exactly once.

Prints a Markdown table row per route (p50/p95/p99, count, errors) and one summary line as JSON (on
the last line, for bench/run): wall time until every report was submitted, until the platform had all,
peak RSS of `har serve` and of the platform, and the CPU seconds each of their thread groups used.

Usage: bench/load.py BASE_URL DATA_DIR SERVE_PID PHOTO_JPEG VOLUNTEERS [--timeout SECONDS] [--healthz]
                     [--uploaders-nice N]
With --healthz: VOLUNTEERS sign in, then each uploads PHOTO_JPEG three times at once while another
address GETs /healthz one request after another; prints /healthz's p50/p99 idle and during the uploads,
and the CPU seconds the server (per thread kind) and this script's uploading process used meanwhile.
--uploaders-nice N runs the uploading threads (not the /healthz probe) at nice N: a stand-in for
uploads from other machines, whose CPU does not compete with the server's. Not the default figure.
Load stays on loopback, bounded: one pass per volunteer, and the wait for the platform stops at the
timeout (default 300 s).
"""
import collections
import http.client
import json
import multiprocessing
import os
import re
import sqlite3
import sys
import threading
import time
import urllib.parse
import uuid

BASE, DATA_DIR, SERVE_PID, PHOTO, COUNT = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
TIMEOUT = float(sys.argv[sys.argv.index("--timeout") + 1]) if "--timeout" in sys.argv else 300.0
UPLOADERS_NICE = int(sys.argv[sys.argv.index("--uploaders-nice") + 1]) if "--uploaders-nice" in sys.argv else 0
HOST, PORT = urllib.parse.urlparse(BASE).hostname, urllib.parse.urlparse(BASE).port
PASSWORD = "correct horse battery"
with open(PHOTO, "rb") as f:
    PHOTO_BYTES = f.read()
RUN = uuid.uuid4().hex[:8]

latencies = collections.defaultdict(list)
errors = collections.defaultdict(int)
failures = []
lock = threading.Lock()


class Volunteer:
    """One person's browser: one keep-alive connection from its own address, its cookies."""

    def __init__(self, index):
        self.index = index
        # 127.0.0.10, 127.0.0.11, …: every address of 127.0.0.0/8 is this machine's loopback.
        self.source = "127.0.%d.%d" % (index // 200, 10 + index % 200)
        self.cookies = {}
        self.connection = None
        self.email = "load.%s.%03d@example.org" % (RUN, index)
        self.name = "Load %s chapel %03d" % (RUN, index)

    def request(self, route, method, path, body=None, headers=None, expect=(200,)):
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join("%s=%s" % item for item in self.cookies.items())
        for attempt in range(2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(HOST, PORT, timeout=120,
                                                             source_address=(self.source, 0))
            started = time.monotonic()
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                data = response.read()
            except (ConnectionError, http.client.HTTPException, OSError) as error:
                self.connection.close()
                self.connection = None
                if attempt == 0 and isinstance(error, (http.client.RemoteDisconnected, ConnectionResetError)):
                    continue  # the server closed an idle keep-alive connection: a browser retries too
                with lock:
                    errors[route] += 1
                    failures.append("%s %s: %s" % (self.email, route, error))
                raise
            elapsed = time.monotonic() - started
            break
        for value in response.msg.get_all("Set-Cookie") or []:
            name, _, rest = value.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        with lock:
            latencies[route].append(elapsed)
            if response.status not in expect:
                errors[route] += 1
                failures.append("%s %s: %d" % (self.email, route, response.status))
        if response.status not in expect:
            raise RuntimeError("%s answered %d" % (route, response.status))
        if response.getheader("Connection", "").lower() == "close":
            self.connection.close()
            self.connection = None
        return data.decode("utf-8", "replace")

    def file_report(self):
        draft, token = self.start_draft()
        for position in range(3):
            self.upload(draft, token, position)
        self.submit()

    def start_draft(self):
        """Signs in (a new account) and opens the creation page: its draft id and CSRF token."""
        page = self.request("GET /signin", "GET", "/signin")
        csrf = re.search(r'name="_csrf" value="([^"]+)"', page).group(1)
        form = urllib.parse.urlencode({"_csrf": csrf, "email": self.email, "password": PASSWORD})
        self.request("POST /signin", "POST", "/signin", form,
                     {"Content-Type": "application/x-www-form-urlencoded"}, expect=(303, 302))
        self.request("GET /reports", "GET", "/reports")
        page = self.request("GET /reports/new", "GET", "/reports/new")
        token = re.search(r'<meta name="har-csrf" content="([^"]+)"', page).group(1)
        draft = re.search(r'"draft":"([^"]+)"', page).group(1)
        return draft, token

    def upload(self, draft, token, position):
        boundary = "----har-load-" + uuid.uuid4().hex
        parts = [("photo_id", str(uuid.uuid4())), ("latitude", "54.73"), ("longitude", "-4.42"),
                 ("accuracy", "8"), ("fix_time", str(int(time.time() * 1000)))]
        body = b"".join(b"--%s\r\nContent-Disposition: form-data; name=\"%s\"\r\n\r\n%s\r\n"
                        % (boundary.encode(), k.encode(), v.encode()) for k, v in parts)
        body += (b"--%s\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"photo-%d.jpg\"\r\n"
                 b"Content-Type: image/jpeg\r\n\r\n" % (boundary.encode(), position))
        body += PHOTO_BYTES + b"\r\n--%s--\r\n" % boundary.encode()
        self.request("POST /api/drafts/:id/photos", "POST", "/api/drafts/%s/photos" % draft, body,
                     {"Content-Type": "multipart/form-data; boundary=" + boundary, "Accept": "application/json",
                      "X-CSRF-Token": token}, expect=(200, 201))

    def submit(self):
        page = self.request("GET /reports/new/submit", "GET", "/reports/new/submit")
        fields = {"_csrf": re.search(r'name="_csrf" value="([^"]+)"', page).group(1),
                  "draft": re.search(r'name="draft" value="([^"]+)"', page).group(1),
                  "submit_token": re.search(r'name="submit_token" value="([^"]+)"', page).group(1),
                  "name": self.name, "designation": "LB", "condition": "poor", "occupancy": "vacant",
                  "priority_category": "C", "owner_type": "private", "grade": "II"}
        self.request("POST /reports/new/submit", "POST", "/reports/new/submit", urllib.parse.urlencode(fields),
                     {"Content-Type": "application/x-www-form-urlencoded"}, expect=(303, 302))
        self.request("GET /reports", "GET", "/reports")
        if self.connection:
            self.connection.close()


def proc_status(pid, key):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid):
    found = []
    try:
        for task in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                found += [int(p) for p in f.read().split()]
    except OSError:
        pass
    return found


def thread_cpu(pid):
    """CPU seconds per thread name (MHD's, Dispatch's, libvips' …) of one process's live threads, and
    "total" for the whole process (threads that already ended included)."""
    ticks = os.sysconf("SC_CLK_TCK")
    groups = collections.defaultdict(float)
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
        fields = stat[stat.rindex(")") + 2:].split()
        groups["total"] = (int(fields[11]) + int(fields[12])) / ticks
    except OSError:
        pass
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return groups
    for task in tasks:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, task)) as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        name = re.sub(r"[-_.]?\d+$", "", name)  # one group per kind of thread
        groups["thread " + name] += (int(fields[11]) + int(fields[12])) / ticks
    return groups


def platform_has(names):
    """Report name → (reports, photos) on the platform, for this run's names."""
    path = os.path.join(DATA_DIR, "platform", "platform.sqlite")
    try:
        db = sqlite3.connect("file:%s?mode=ro" % path, uri=True, timeout=10)
        rows = db.execute(
            "SELECT r.place_name, count(DISTINCT r.id), count(p.id) FROM report r LEFT JOIN photo p ON p.report_id = r.id "
            "WHERE r.place_name LIKE ? AND r.deleted_time IS NULL GROUP BY r.place_name", ("Load %s %%" % RUN,)).fetchall()
        db.close()
    except sqlite3.Error:
        return {}
    return {name: (reports, photos) for name, reports, photos in rows if name in names}


def main():
    platform_pids = children(SERVE_PID)
    cpu_before = {pid: thread_cpu(pid) for pid in [SERVE_PID] + platform_pids}
    volunteers = [Volunteer(i) for i in range(COUNT)]
    start_line = threading.Barrier(COUNT + 1)
    peak = {"serve": 0, "platform": 0}
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak["serve"] = max(peak["serve"], proc_status(SERVE_PID, "VmRSS"))
            peak["platform"] = max(peak["platform"], sum(proc_status(p, "VmRSS") for p in platform_pids))
            time.sleep(0.05)

    def run(volunteer):
        start_line.wait()
        try:
            volunteer.file_report()
        except Exception as error:  # counted in errors; the others go on
            with lock:
                failures.append("%s: %s" % (volunteer.email, error))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    threads = [threading.Thread(target=run, args=(v,)) for v in volunteers]
    for thread in threads:
        thread.start()
    start_line.wait()
    started = time.monotonic()
    for thread in threads:
        thread.join()
    submitted = time.monotonic() - started
    names = {v.name for v in volunteers}
    delivered = None
    while time.monotonic() - started < TIMEOUT:
        held = platform_has(names)
        if len(held) == len(names) and all(photos >= 3 for _, photos in held.values()):
            delivered = time.monotonic() - started
            break
        time.sleep(0.1)
    time.sleep(1)  # a duplicate would show up after the last report: look again
    held = platform_has(names)
    done.set()
    sampler.join()
    exactly_once = len(held) == len(names) and all(held[n] == (1, 3) for n in names)
    cpu_after = {pid: thread_cpu(pid) for pid in cpu_before}

    def cpu_of(pid):
        return {name: round(seconds - cpu_before[pid].get(name, 0), 2)
                for name, seconds in sorted(cpu_after[pid].items()) if seconds - cpu_before[pid].get(name, 0) >= 0.01}

    print("| route | requests | p50 | p95 | p99 | errors |")
    print("| --- | --- | --- | --- | --- | --- |")
    for route in ["GET /signin", "POST /signin", "GET /reports", "GET /reports/new", "POST /api/drafts/:id/photos",
                  "GET /reports/new/submit", "POST /reports/new/submit"]:
        values = sorted(latencies[route])
        if not values:
            continue

        def pct(p):
            return "%.0f ms" % (1000 * values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))])
        print("| %s | %d | %s | %s | %s | %d |" % (route, len(values), pct(50), pct(95), pct(99), errors[route]))
    for line in failures[:10]:
        print("load: " + line, file=sys.stderr)
    summary = {
        "volunteers": COUNT, "errors": sum(errors.values()), "failures": len(failures), "submitted_seconds": round(submitted, 2),
        "delivered_seconds": None if delivered is None else round(delivered, 2), "exactly_once": exactly_once,
        "reports_on_platform": sum(r for r, _ in held.values()), "serve_peak_rss_mb": round(peak["serve"] / 1024, 1),
        "platform_peak_rss_mb": round(peak["platform"] / 1024, 1), "serve_cpu": cpu_of(SERVE_PID),
        "platform_cpu": {pid: cpu_of(pid) for pid in platform_pids},
    }
    # What one sign-in's password hash costs the local platform (PBKDF2-HMAC-SHA256, 150,000 rounds,
    # LocalPlatformConfiguration.passwordIterations), measured here in CPU time with the same OpenSSL.
    import hashlib
    cpu = time.process_time()
    hashlib.pbkdf2_hmac("sha256", PASSWORD.encode(), os.urandom(16), 150_000)
    summary["pbkdf2_ms"] = round(1000 * (time.process_time() - cpu), 1)
    print(json.dumps(summary))


def name_thread(name):
    """Names the calling thread for top -H, ps -L and perf (Linux; elsewhere nothing)."""
    try:
        with open("/proc/thread-self/comm", "w") as f:
            f.write(name)
    except OSError:
        pass


def probe(source, stop, results, seconds):
    """GET /healthz one request at a time from `source` until `stop` is set or `seconds` pass."""
    name_thread("healthz-probe")
    connection = http.client.HTTPConnection(HOST, PORT, timeout=60, source_address=(source, 0))
    values = []
    until = time.monotonic() + seconds
    while not stop.is_set() and time.monotonic() < until:
        started = time.monotonic()
        connection.request("GET", "/healthz")
        connection.getresponse().read()
        values.append(time.monotonic() - started)
        time.sleep(0.005)
    results.put(sorted(values))


def healthz_under_uploads(uploads_each=3):
    """`--healthz`: the p50/p99 of GET /healthz (one request at a time from its own address), first with
    nothing else running, then while COUNT volunteers each upload PHOTO `uploads_each` times at once."""
    volunteers = [Volunteer(i) for i in range(COUNT)]
    drafts = [v.start_draft() for v in volunteers]
    probe_address = "127.0.%d.%d" % (COUNT // 200, 10 + COUNT % 200)
    context = multiprocessing.get_context("fork")

    def start_probe(seconds):
        """/healthz from a process of its own (the uploading threads here would make it wait for
        Python's GIL, which is not the server's latency); forked before any thread starts."""
        stop, results = context.Event(), context.Queue()
        worker = context.Process(target=probe, args=(probe_address, stop, results, seconds))
        worker.start()
        return stop, results, worker

    def finish_probe(stop, results, worker):
        stop.set()
        values = results.get()
        worker.join()
        return values

    stop, results, worker = start_probe(5)
    time.sleep(5)
    idle = finish_probe(stop, results, worker)
    def uploads(volunteer, draft):
        name_thread("uploader")
        if UPLOADERS_NICE:  # this thread only (Linux keeps nice per thread); the probe stays at 0
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), UPLOADERS_NICE)
        for k in range(uploads_each):
            volunteer.upload(draft[0], draft[1], k)

    threads = [threading.Thread(target=uploads, args=(v, d)) for v, d in zip(volunteers, drafts)]
    stop, results, worker = start_probe(TIMEOUT)
    serve_before, own_before = thread_cpu(SERVE_PID), os.times()
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.monotonic() - started
    busy = finish_probe(stop, results, worker)
    serve_after, own_after = thread_cpu(SERVE_PID), os.times()
    serve_cpu = {name: round(value - serve_before.get(name, 0), 2) for name, value in sorted(serve_after.items())
                 if value - serve_before.get(name, 0) >= 0.01}

    def pct(values, p):
        return 1000 * values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]
    uploads = sorted(latencies["POST /api/drafts/:id/photos"])
    print(json.dumps({
        "clients": COUNT, "photo_mb": round(len(PHOTO_BYTES) / 1e6, 1), "uploads": len(uploads),
        "errors": sum(errors.values()), "seconds": round(seconds, 2),
        "upload_p50_ms": round(pct(uploads, 50)), "upload_p99_ms": round(pct(uploads, 99)),
        "idle_samples": len(idle), "idle_p50_ms": round(pct(idle, 50), 2), "idle_p99_ms": round(pct(idle, 99), 2),
        "busy_samples": len(busy), "busy_p50_ms": round(pct(busy, 50), 2), "busy_p99_ms": round(pct(busy, 99), 2),
        "busy_p999_ms": round(pct(busy, 99.9), 2), "uploaders_nice": UPLOADERS_NICE, "serve_cpu": serve_cpu,
        "uploaders_cpu_s": round(own_after.user + own_after.system - own_before.user - own_before.system, 2)}))


if __name__ == "__main__":
    if "--healthz" in sys.argv:
        healthz_under_uploads()
    else:
        main()
