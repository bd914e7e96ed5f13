#!/usr/bin/env bash
# Three parts of bench/run alone, with their steps as bench/run takes them, repeated so that a shared
# machine's noise shows as a range: the 200 MB upload against dd (part 4), run alternately (dd, upload,
# dd, upload, …), /healthz's latency while 4 clients upload 10 MB photos (part 9), and a busy day's
# volunteers filing at once (part 10). Prints one line per measurement; writes nothing else.
#
#   bench/uploads.sh upload 3     # three dd/upload pairs
#   bench/uploads.sh healthz 3    # three /healthz runs, a fresh server for each
#   bench/uploads.sh busy 2 40    # two busy days of 40 volunteers (default 40), a fresh server for each
#   HAR=path/to/har bench/uploads.sh …   # another build (default: .build/release/har, built if missing)
#
# STRACE=1 also counts the server's system calls during each upload (strace -f -c, slower: its times
# are then not comparable). UPLOADERS_NICE=10 runs the healthz part's uploading clients at nice 10 (the
# /healthz probe stays at 0): a stand-in for clients on other machines, not bench/run's figure. HAR_*
# variables in the environment reach the server (e.g. HAR_THREADS=2).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
part=${1:-upload}
rounds=${2:-3}
volunteers=${3:-40}
HAR=${HAR:-$root/.build/release/har}
[ -x "$HAR" ] || { PATH="/opt/swift/usr/bin:$PATH" swift build -c release --product har >/dev/null; }
work=$(mktemp -d /tmp/har-uploads.XXXXXX)
har_pid=""
cleanup() {
    [ -n "$har_pid" ] && kill "$har_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() { for _ in $(seq 1 300); do curl -fs -o /dev/null "$1" && return 0; sleep 0.1; done; echo "uploads: $1 never answered" >&2; exit 1; }
# user and system CPU seconds of a process so far ("user sys")
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f %.3f", $14 / hz, $15 / hz }' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
hwm_kb() { awk '/^VmHWM/ {print $2}' "/proc/$1/status"; }
port=$(free_port)

start_har() {  # data folder, then extra variables
    local dir=$1
    shift
    mkdir -p "$dir"
    env HAR_PORT=$port HAR_DATA_DIR="$dir" HAR_ACCESS_LOG=false "$@" "$HAR" serve > "$dir.log" 2>&1 &
    har_pid=$!
    wait_http "http://127.0.0.1:$port/healthz"
    # Measured once its static files are loaded and compressed (static_warm), not while that runs.
    for _ in $(seq 1 300); do grep -q "static files loaded ahead" "$dir.log" && break; sleep 0.1; done
}
stop_har() { kill -TERM "$har_pid"; wait "$har_pid" 2>/dev/null || true; har_pid=""; }

upload_round() {
    local n=$1
    sync
    local dd_start dd_end
    dd_start=$(date +%s.%N)
    dd if="$work/upload.bin" of="$work/dd.bin" bs=1M conv=fdatasync status=none
    dd_end=$(date +%s.%N)
    rm -f "$work/dd.bin"
    local dd_mbs
    dd_mbs=$(echo "200 / ($dd_end - $dd_start)" | bc -l)
    start_har "$work/upload-$n" HAR_BENCHMARK_ROUTES=true \
        HAR_MAX_BODY_BYTES=$((256 * 1024 * 1024)) HAR_MAX_FILE_BYTES=$((256 * 1024 * 1024))
    sleep 0.5
    local tracer=""
    if [ "${STRACE:-0}" = 1 ]; then
        strace -f -c -o "$work/strace-$n.txt" -p "$har_pid" 2>/dev/null &
        tracer=$!
        sleep 0.5
    fi
    local before_kb up_time peak_kb cpu_before cpu_after
    before_kb=$(rss_kb "$har_pid")
    cpu_before=$(cpu_s "$har_pid")
    up_time=$(curl -fs -o /dev/null -w '%{time_total}' -F "file=@$work/upload.bin;type=application/octet-stream" \
        "http://127.0.0.1:$port/bench/upload")
    peak_kb=$(hwm_kb "$har_pid")
    cpu_after=$(cpu_s "$har_pid")
    if [ -n "$tracer" ]; then
        kill -INT "$tracer"
        wait "$tracer" 2>/dev/null || true
    fi
    stop_har
    rm -rf "$work/upload-$n"
    printf 'round %d: dd %.0f MB/s, upload %.0f MB/s (%.2f× dd), peak RSS growth %.1f MB, server CPU %s\n' "$n" \
        "$dd_mbs" "$(echo "200 / $up_time" | bc -l)" "$(echo "(200 / $up_time) / $dd_mbs" | bc -l)" \
        "$(echo "($peak_kb - $before_kb) / 1024" | bc -l)" \
        "$(echo "$cpu_before $cpu_after" | awk '{ printf "user %.2f s, system %.2f s", $3 - $1, $4 - $2 }')"
    if [ -n "$tracer" ]; then
        awk '$NF ~ /^(recvfrom|read|write|pwrite64|fdatasync|fsync|epoll_wait)$/ { print "    " $NF ": " $4 " calls" }' \
            "$work/strace-$n.txt"
    fi
}

healthz_round() {
    local n=$1
    start_har "$work/healthz-$n" HAR_WORKER_ENABLED=false
    python3 bench/load.py "http://127.0.0.1:$port" "$work/healthz-$n" "$har_pid" "$work/photo-10mb.jpg" 4 \
        --timeout 120 --healthz --uploaders-nice "${UPLOADERS_NICE:-0}" | tail -1 | python3 -c '
import json, sys
s = json.loads(sys.stdin.read())
print("run %s: /healthz idle p50 %.2f p99 %.2f ms (%d); during uploads p50 %.2f p99 %.2f ms (%d): %.1f× idle p99; "
      "uploads %d, errors %d, p50 %d ms, p99 %d ms, %.1f s" % (sys.argv[1], s["idle_p50_ms"], s["idle_p99_ms"],
      s["idle_samples"], s["busy_p50_ms"], s["busy_p99_ms"], s["busy_samples"], s["busy_p99_ms"] / s["idle_p99_ms"],
      s["uploads"], s["errors"], s["upload_p50_ms"], s["upload_p99_ms"], s["seconds"]))
print("    uploaders at nice %d used %.2f s CPU; server %s" % (s["uploaders_nice"], s["uploaders_cpu_s"],
      ", ".join("%s %.2f s" % item for item in s["serve_cpu"].items())))' "$n"
    stop_har
    rm -rf "$work/healthz-$n"
}

busy_round() {
    local n=$1
    start_har "$work/busy-$n"
    python3 bench/load.py "http://127.0.0.1:$port" "$work/busy-$n" "$har_pid" "$work/photo-1.5mb.jpg" \
        "$volunteers" --timeout 300 > "$work/busy-$n.out"
    stop_har
    tail -1 "$work/busy-$n.out" | python3 -c '
import json, sys
s = json.loads(sys.stdin.read())
cpu = s["serve_cpu"]
print("run %s: %d volunteers, errors %d, all submitted in %.1f s, at the platform in %.1f s, exactly once: %s, "
      "peak RSS %.1f MB, server CPU %.1f s (libvips workers %.1f s)" % (sys.argv[1], s["volunteers"], s["errors"],
      s["submitted_seconds"], s["delivered_seconds"] or -1, s["exactly_once"], s["serve_peak_rss_mb"],
      cpu.get("total", 0), cpu.get("thread libvips worker", 0)))' "$n"
    grep -E "^\| (POST /api/drafts/:id/photos|POST /signin) " "$work/busy-$n.out" | sed 's/^/    /'
    rm -rf "$work/busy-$n"
}

case "$part" in
upload)
    head -c $((200 * 1024 * 1024)) /dev/urandom > "$work/upload.bin"
    for n in $(seq 1 "$rounds"); do upload_round "$n"; done
    ;;
healthz)
    python3 bench/make-jpeg.py "$work/photo-10mb.jpg" 5200 3900
    for n in $(seq 1 "$rounds"); do healthz_round "$n"; done
    ;;
busy)
    python3 bench/make-jpeg.py "$work/photo-1.5mb.jpg" 2000 1500
    for n in $(seq 1 "$rounds"); do busy_round "$n"; done
    ;;
*)
    echo "usage: bench/uploads.sh upload|healthz|busy [ROUNDS] [VOLUNTEERS]" >&2
    exit 2
    ;;
esac
