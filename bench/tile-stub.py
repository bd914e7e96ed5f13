#!/usr/bin/env python3
"""Map tiles for the slow-network budget (bench/slow-network.py), served on loopback so that the creation
page's map does not depend on reaching tile.openstreetmap.org from the bench machine: where its name
does not resolve, the lookup sometimes waits for the resolver's 5 s timeout, and the tiles, inserted
before the page's load event, hold that event (docs/BENCHMARKS-LOG.md, "uploads and latency under uploads").

Every GET /{z}/{x}/{y}.png answers the same 256×256 PNG of about 12 KB (an OpenStreetMap tile's usual
weight) with a week's max-age, as a tile server sends them. Runs until killed.

Usage: bench/tile-stub.py PORT
"""
import http.server
import random
import re
import struct
import sys
import zlib


def make_png():
    rng = random.Random(14)
    rows = []
    for y in range(256):
        # Sixteen rows of noise, the rest flat: about 12 KB once deflated.
        pixels = bytes(rng.randrange(256) for _ in range(768)) if y < 16 else bytes([170, 211, 223]) * 256
        rows.append(b"\x00" + pixels)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 256, 256, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
            + chunk(b"IEND", b""))


TILE = make_png()
PATH = re.compile(r"^/\d+/\d+/\d+\.png$")


class Tiles(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if not PATH.match(self.path):
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(TILE)))
        self.send_header("Cache-Control", "max-age=604800")
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Timing-Allow-Origin", "*")  # its bytes count in the page's resource timing
        self.end_headers()
        self.wfile.write(TILE)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Tiles).serve_forever()
