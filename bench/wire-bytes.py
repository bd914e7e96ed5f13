#!/usr/bin/env python3
"""Bytes on the wire for each screen, as a browser with an empty cache fetches it: the page, then every
script, style sheet and image it names (and the modules those scripts import), once as they are
(Accept-Encoding: identity) and once as a browser asks (gzip, deflate, br). Headers included (curl's
size_header), bodies as sent (not decoded). Does not depend on CPU time: quotable on a busy machine.

Usage: bench/wire-bytes.py BASE_URL SESSION_TOKEN   (prints a Markdown table)
"""
import re
import subprocess
import sys
from urllib.parse import urljoin, urlparse

BASE, TOKEN = sys.argv[1].rstrip("/"), sys.argv[2]
BROWSER = "gzip, deflate, br"


def fetch(url, encoding, signed_in):
    """(bytes on the wire, body text when asked without compression)"""
    command = ["curl", "-s", "-o", "/tmp/har-wire-body", "-w", "%{size_header} %{size_download} %{http_code}",
               "-H", f"Accept-Encoding: {encoding}"]
    if signed_in:
        command += ["-H", f"Cookie: har_session={TOKEN}"]
    out = subprocess.run(command + [url], capture_output=True, text=True, check=True).stdout.split()
    header, body, status = int(out[0]), int(out[1]), out[2]
    if status != "200":
        raise SystemExit(f"wire-bytes: {url} answered {status}")
    with open("/tmp/har-wire-body", "rb") as f:
        text = f.read().decode("utf-8", "replace") if encoding == "identity" else ""
    return header + body, text


def assets(page_url, html):
    found = [urljoin(page_url, m) for m in re.findall(r'(?:src|href)="(/static/[^"]+)"', html)]
    return list(dict.fromkeys(found))


def module_imports(url, text):
    return [urljoin(url, m) for m in re.findall(r'''(?:from|import)\s*\(?\s*['"](\.{1,2}/[^'"]+)['"]''', text)]


def screen(path, signed_in):
    page_url = BASE + path
    totals = {}
    for encoding in ("identity", BROWSER):
        size, html = fetch(page_url, encoding, signed_in)
        if encoding == "identity":
            queue, seen = assets(page_url, html), set()
            names = []
            while queue:
                url = queue.pop(0)
                if url in seen:
                    continue
                seen.add(url)
                names.append(url)
                if urlparse(url).path.endswith(".js"):
                    _, text = fetch(url, "identity", signed_in)
                    queue += module_imports(url, text)
            resources = names
        page_size = size
        asset_size = sum(fetch(url, encoding, signed_in)[0] for url in resources)
        totals[encoding] = (page_size, asset_size)
    return totals, len(resources)


screens = [("sign-in", "/signin", False), ("report list (50 of 200 shown)", "/reports", True),
           ("settings", "/settings", True), ("report creation", "/reports/new", True)]
print("| screen | page, as it is | page, compressed | assets (count), as they are | assets, compressed | total before → after |")
print("| --- | --- | --- | --- | --- | --- |")
for name, path, signed_in in screens:
    totals, count = screen(path, signed_in)
    (p0, a0), (p1, a1) = totals["identity"], totals[BROWSER]
    kb = lambda n: f"{n / 1024:.1f} KB"
    print(f"| {name} | {kb(p0)} | {kb(p1)} ({p1 / p0:.0%}) | {kb(a0)} ({count}) | {kb(a1)} ({a1 / max(a0, 1):.0%}) "
          f"| {kb(p0 + a0)} → {kb(p1 + a1)} ({(p1 + a1) / (p0 + a0):.0%}) |")
