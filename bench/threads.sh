#!/usr/bin/env bash
# The MHD thread pool's size against its tail: the static file and /bench/rows as bench/run
# measures them (wrk, 64 connections, 2 threads, percentiles.lua), against a fresh `har serve` per pool
# size, the sizes alternated round after round so that a shared machine's noise shows as a range.
#
#   bench/threads.sh 2 "2 4 8"   # two rounds of threads = 2, 4, 8
#   DURATION=10 HAR=path/to/har bench/threads.sh …
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
rounds=${1:-2}
sizes=${2:-"2 4 8"}
DURATION=${DURATION:-5}
HAR=${HAR:-$root/.build/release/har}
[ -x "$HAR" ] || { PATH="/opt/swift/usr/bin:$PATH" swift build -c release --product har >/dev/null; }
work=$(mktemp -d /tmp/har-threads.XXXXXX)
har_pid=""
cleanup() {
    [ -n "$har_pid" ] && kill "$har_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

for n in $(seq 1 "$rounds"); do
    for size in $sizes; do
        rm -rf "$work/data"
        HAR_THREADS=$size HAR_PORT=$port HAR_DATA_DIR="$work/data" HAR_ACCESS_LOG=false HAR_BENCHMARK_ROUTES=true \
            HAR_WORKER_ENABLED=false "$HAR" serve > "$work/har.log" 2>&1 &
        har_pid=$!
        for _ in $(seq 1 300); do curl -fs -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
        # Once its static files are loaded and compressed (static_warm): no first request pays that.
        for _ in $(seq 1 300); do grep -q "static files loaded ahead" "$work/har.log" && break; sleep 0.1; done
        for route in /static/css/app.css /bench/rows; do
            wrk -t2 -c64 -d"${DURATION}s" --latency -s bench/percentiles.lua "http://127.0.0.1:$port$route" > "$work/wrk.txt"
            awk -v n="$n" -v size="$size" -v route="$route" -v load="$(cut -d' ' -f1 /proc/loadavg)" '
              /Requests\/sec/ { rps = $2 } $1 == "PERCENTILES" { p50 = $2; p99 = $3; p999 = $4 }
              END { printf "round %d, threads %d, %s: %.0f req/s, p50 %.2f p99 %.2f p99.9 %.2f ms (load average %s)\n",
                    n, size, route, rps, p50, p99, p999, load }' "$work/wrk.txt"
        done
        kill -TERM "$har_pid"
        wait "$har_pid" 2>/dev/null || true
        har_pid=""
    done
done
