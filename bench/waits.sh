#!/usr/bin/env bash
# Where the signed-in list spends what instruction counts do not show: CPU per request of `har serve` and
# of wrk (the two cores are shared, so requests/s is about 2 cores over their sum), and the system calls
# per request by kind (futex waits, the file checks of read transactions, the socket's).
#
#   bench/waits.sh cpu       # wrk -t2 -c64 for DURATION s (10): req/s, har's user and system µs per
#                            # request (/proc/PID/stat), wrk's (from time)
#   bench/waits.sh syscalls  # strace -c -f of har while wrk -t1 -c4 runs for DURATION s (3): each call
#                            # per request (strace slows every call: compare counts, not rates)
#   KEPT=0                   # the list rendered on every request (default); KEPT= for the kept page
#   HAR=path/to/har          # another build (default: this tree's release build)
#   STRACE_OPTS="-k -e trace=futex"  # with `syscalls`: stacks instead of counts, kept in STRACE_OUT
#
# The 2026-12-06 figures in docs/BENCHMARKS.md ("The list rendered on every request") come from it.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-cpu}
har=${HAR:-$(pwd)/.build/release/har}
work=$(mktemp -d /tmp/har-waits.XXXXXX)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/list"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
start() {
    env HAR_PORT="$port" HAR_DATA_DIR="$work/list" HAR_ACCESS_LOG=false HAR_WORKER_ENABLED=false "$@" \
        "$har" serve > "$work/har.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 100); do curl -fs -o /dev/null "http://127.0.0.1:$port/healthz" && return 0; sleep 0.1; done
    echo "waits: har serve never answered" >&2
    exit 1
}
start
kill "$pid"
wait "$pid" 2>/dev/null || true
token=$(bench/list-fixture.sh "$work/list" 200)
cookie="Cookie: har_session=$token"
if [ -n "${KEPT-0}" ]; then start HAR_LIST_KEPT_BYTES="${KEPT-0}"; else start; fi
curl -fs -o /dev/null -H "$cookie" "http://127.0.0.1:$port/reports"
per() { echo "$1 $2" | awk '{ printf "%.2f", $1 / $2 }'; }
case "$mode" in
    cpu)
        read -r user0 system0 < <(awk '{ print $14, $15 }' "/proc/$pid/stat")
        /usr/bin/time -f "%U %S" -o "$work/wrk.time" \
            wrk -t2 -c64 -d"${DURATION:-10}s" -H "$cookie" "http://127.0.0.1:$port/reports" > "$work/wrk.out"
        read -r user1 system1 < <(awk '{ print $14, $15 }' "/proc/$pid/stat")
        requests=$(awk '/requests in/ { print $1 }' "$work/wrk.out")
        ticks=$(getconf CLK_TCK)
        echo "requests/s $(awk '/Requests\/sec/ { print $2 }' "$work/wrk.out")"
        echo "har µs per request: user $(per "$(( (user1 - user0) * 1000000 / ticks ))" "$requests")," \
            "system $(per "$(( (system1 - system0) * 1000000 / ticks ))" "$requests")"
        read -r wuser wsystem < "$work/wrk.time"
        echo "wrk µs per request: $(echo "$wuser $wsystem $requests" | awk '{ printf "%.2f", ($1 + $2) * 1e6 / $3 }')"
        ;;
    syscalls)
        strace ${STRACE_OPTS:--c} -f -p "$pid" -o "$work/strace.out" 2> "$work/strace.err" &
        tracer=$!
        # Counting starts once strace says it is attached to the process's threads.
        for _ in $(seq 1 200); do grep -q "attached" "$work/strace.err" && break; sleep 0.05; done
        wrk -t1 -c4 -d"${DURATION:-3}s" -H "$cookie" "http://127.0.0.1:$port/reports" > "$work/wrk.out"
        kill -INT "$tracer"
        wait "$tracer" || true
        requests=$(awk '/requests in/ { print $1 }' "$work/wrk.out")
        if [ -n "${STRACE_OUT:-}" ]; then cp "$work/strace.out" "$STRACE_OUT"; fi
        echo "requests $requests"
        awk -v r="$requests" 'NR > 2 && $4 ~ /^[0-9]+$/ { printf "%-16s %8.2f per request\n", $NF, $4 / r }' \
            "$work/strace.out" | sort -k2 -rn | head -12
        ;;
    *) echo "usage: bench/waits.sh cpu|syscalls" >&2; exit 2 ;;
esac
