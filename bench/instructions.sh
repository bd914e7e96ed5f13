#!/usr/bin/env bash
# Instructions per request, counted by callgrind: a figure that does not move with the machine's load
# (the same binary, inputs and environment give the same count), so two builds can be compared on a
# busy machine where requests/s cannot. For each route: start `har serve` under callgrind, warm up,
# zero the counters, send N requests on one keep-alive connection with curl, dump, divide.
#
#   bench/instructions.sh [TREE]   # TREE: a checkout with a release build (default: this one)
#   ONLY="static list-304"           # count only these routes (default: all)
#   KEEP=DIR                         # keep each route's profile as DIR/ROUTE.callgrind, for
#                                    # `callgrind_annotate --inclusive=yes DIR/ROUTE.callgrind`
#   Any HAR_ variable set outside (HAR_CONNECTION_MEMORY_BYTES=16384) reaches har serve.
#
# Routes: static, template, list-uncached, list-gzip, list-304, list-json, list-rendered,
# list-gzip-rendered, list-json-rendered, list-miss, signin.
# Prints "route instructions-per-request" lines. Used for the before/after figures in docs/BENCHMARKS.md.
set -euo pipefail
tree=$(cd "${1:-$(dirname "$0")/..}" && pwd)
cd "$tree"  # har serve reads Templates/ and Public/ from its working folder
har="$tree/.build/release/har"
N=${N:-200}
work=$(mktemp -d /tmp/har-instr.XXXXXX)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

start() {  # data folder, then extra environment
    local dir=$1; shift
    # static_warm off: under valgrind it would take a minute; the warm-up requests below load what is counted.
    env HAR_PORT=$port HAR_DATA_DIR="$dir" HAR_ACCESS_LOG=false HAR_WORKER_ENABLED=false HAR_STATIC_WARM=false "$@" \
        valgrind --tool=callgrind --callgrind-out-file="$work/cg.%p" "$har" serve > "$work/serve.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 600); do curl -fs -o /dev/null "http://127.0.0.1:$port/healthz" && return 0; sleep 0.2; done
    echo "instructions: har serve never answered" >&2; exit 1
}
stop() { kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=""; }
count() {  # label, then curl arguments; the URL last
    local label=$1; shift
    if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $label "* ]]; then return 0; fi
    local url=${!#}
    local args=("${@:1:$#-1}")
    # One curl, one keep-alive connection, as wrk's connections are: per-connection costs (MHD's
    # memory pool, the accept) are spread as they are under load, not paid once per request.
    { for _ in $(seq 1 "$N"); do printf 'url = "%s"\noutput = "/dev/null"\n' "$url"; done; } > "$work/urls"
    curl -fs "${args[@]}" -K "$work/urls"
    callgrind_control -z "$pid" >/dev/null 2>&1
    curl -fs "${args[@]}" -K "$work/urls"
    callgrind_control -d "$pid" >/dev/null 2>&1
    local total
    total=$(grep -h '^summary:' "$work"/cg.$pid.* | tail -1 | awk '{print $2}')
    if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$(ls -t "$work"/cg.$pid.* | head -1)" "$KEEP/$label.callgrind"; fi
    rm -f "$work"/cg.$pid.*
    echo "$label $((total / N))"
}

mkdir -p "$work/data" "$work/list" "$work/signin"
start "$work/data" HAR_BENCHMARK_ROUTES=true
count static "http://127.0.0.1:$port/static/css/app.css"
count template "http://127.0.0.1:$port/bench/rows"
stop
start "$work/list"
stop
token=$("$tree/bench/list-fixture.sh" "$work/list" 200)
start "$work/list"
count list-uncached -H "Cookie: har_session=$token" "http://127.0.0.1:$port/reports"
count list-gzip -H "Cookie: har_session=$token" -H "Accept-Encoding: gzip" "http://127.0.0.1:$port/reports"
# The 304 of an unchanged list: the ETag of this very process (it carries a per-process epoch).
tag=$(curl -fs -D - -o /dev/null -H "Cookie: har_session=$token" "http://127.0.0.1:$port/reports" \
    | awk 'tolower($1) == "etag:" { print $2 }' | tr -d '\r')
count list-304 -H "Cookie: har_session=$token" -H "If-None-Match: $tag" "http://127.0.0.1:$port/reports"
count list-json -H "Cookie: har_session=$token" -H "Accept: application/json" "http://127.0.0.1:$port/api/reports"
stop
# The list rendered on every request: with the kept answers off (list_kept_bytes 0, as before they
# were kept), and with a bound too small to keep the page (rendered, cut where the token goes, and
# spliced: what a request whose tag is not kept yet costs).
start "$work/list" HAR_LIST_KEPT_BYTES=0
count list-rendered -H "Cookie: har_session=$token" "http://127.0.0.1:$port/reports"
count list-gzip-rendered -H "Cookie: har_session=$token" -H "Accept-Encoding: gzip" "http://127.0.0.1:$port/reports"
count list-json-rendered -H "Cookie: har_session=$token" -H "Accept: application/json" \
    "http://127.0.0.1:$port/api/reports"
stop
start "$work/list" HAR_LIST_KEPT_BYTES=100000
count list-miss -H "Cookie: har_session=$token" "http://127.0.0.1:$port/reports"
stop
# A sign-in: the form posted with the anonymous CSRF token (its cookie and its field), the password
# checked by the embedded local platform (a child process: not counted), a new web session each time,
# answered with the redirect to the list. The account is made by the first sign-in of the warm-up.
start "$work/signin"
csrf=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
count signin -H "Cookie: har_csrf=$csrf" \
    --data "_csrf=$csrf&email=bench-signin%40example.org&password=correct+horse+battery+staple" \
    "http://127.0.0.1:$port/signin"
stop
