#!/usr/bin/env bash
# Resident memory of `har serve` at rest, as bench/run's row measures it (one second after the server
# says its static files are loaded, or after it answers when static_warm is off), split into what is
# anonymous (the heap, the arenas, stacks) and what is mapped from files (the binary and the libraries'
# pages it touched), and the peak since start (VmHWM). Fresh server and data folder each round.
#
#   bench/rss.sh [ROUNDS] [VAR=value …]     # e.g. bench/rss.sh 3 HAR_STATIC_WARM=false
#   HAR=path/to/har bench/rss.sh …          # another build (default: .build/release/har, built if missing)
#   BY_MAPPING=1 bench/rss.sh 1             # also each mapping's resident KB, largest first
#
# One line per round: "rest_kb hwm_kb anon_kb file_kb threads". Used for docs/BENCHMARKS.md, "Resident
# memory at rest".
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
rounds=${1:-3}
shift || true
if [ -z "${HAR:-}" ]; then
    HAR=$root/.build/release/har
    [ -x "$HAR" ] || PATH="/opt/swift/usr/bin:$PATH" swift build -c release --product har >/dev/null
fi
[ -x "$HAR" ] || { echo "bench/rss.sh: no $HAR" >&2; exit 1; }
work=$(mktemp -d /tmp/har-rss.XXXXXX)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
warm=true
for setting in "$@"; do [ "$setting" = "HAR_STATIC_WARM=false" ] && warm=false; done

field() { awk -v name="$1:" '$1 == name {print $2}' "/proc/$pid/status"; }
echo "rest_kb hwm_kb anon_kb file_kb threads"
for round in $(seq 1 "$rounds"); do
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    env HAR_PORT="$port" HAR_DATA_DIR="$work/data$round" HAR_ACCESS_LOG=false HAR_BENCHMARK_ROUTES=true "$@" \
        "$HAR" serve > "$work/serve$round.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 300); do curl -fs -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
    if [ "$warm" = true ]; then
        for _ in $(seq 1 300); do grep -q "static files loaded ahead" "$work/serve$round.log" && break; sleep 0.1; done
    fi
    sleep 1
    kill -0 "$pid" 2>/dev/null || { echo "bench/rss.sh: har serve stopped:" >&2; cat "$work/serve$round.log" >&2; exit 1; }
    echo "$(field VmRSS) $(field VmHWM) $(field RssAnon) $(field RssFile) $(ls "/proc/$pid/task" | wc -l)"
    if [ -n "${BY_MAPPING:-}" ]; then
        awk '/^[0-9a-f]+-[0-9a-f]+ / {name = (NF >= 6 ? $6 : "[anonymous]")} /^Rss:/ {kb[name] += $2}
             END {for (n in kb) if (kb[n] >= 100) print kb[n], n}' "/proc/$pid/smaps" | sort -rn
    fi
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=""
done
