#!/usr/bin/env bash
# What accepting costs: /healthz with a new connection for every request (wrk, 16 connections,
# "Connection: close") and kept alive (64 connections), against two builds of `har` alternated round
# after round, a fresh `har serve` each time, so that a shared machine's noise shows as a range.
# Written for the listening socket of our own (docs/HTTP.md, "A rare abort while stopping").
#
#   bench/connections.sh BEFORE_HAR AFTER_HAR [ROUNDS]   # e.g. a copy of an older .build/release/har
#   DURATION=10 bench/connections.sh …
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bench/connections.sh BEFORE_HAR AFTER_HAR [ROUNDS]" >&2; exit 2; }
before=$1 after=$2 rounds=${3:-3}
DURATION=${DURATION:-5}
work=$(mktemp -d /tmp/har-connections.XXXXXX)
har_pid=""
cleanup() {
    [ -n "$har_pid" ] && kill "$har_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

measure() {  # binary, label
    local dir
    dir=$(mktemp -d "$work/data.XXXXXX")
    env HAR_PORT="$port" HAR_DATA_DIR="$dir" HAR_ACCESS_LOG=false "$1" serve > "$dir.log" 2>&1 &
    har_pid=$!
    for _ in $(seq 1 300); do curl -fs -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
    for _ in $(seq 1 300); do grep -q "static files loaded ahead" "$dir.log" && break; sleep 0.1; done
    local fresh kept
    fresh=$(wrk -t2 -c16 -d"${DURATION}s" -H "Connection: close" "http://127.0.0.1:$port/healthz" \
        | awk '/Requests\/sec/ {print $2}')
    kept=$(wrk -t2 -c64 -d"${DURATION}s" "http://127.0.0.1:$port/healthz" | awk '/Requests\/sec/ {print $2}')
    echo "$2: new connection per request $fresh req/s, kept alive $kept req/s"
    kill -TERM "$har_pid"
    wait "$har_pid" 2>/dev/null || true
    har_pid=""
}

for round in $(seq 1 "$rounds"); do
    echo "round $round"
    measure "$before" before
    measure "$after" after
done
