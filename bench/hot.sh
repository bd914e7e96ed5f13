#!/usr/bin/env bash
# The paths users hit most, against nginx in the same round: the static file, the template page with
# 50 SQLite rows, the signed-in list (kept page), the same list rendered on every request, and its 304.
# Each round measures nginx first, then each route of `har serve` (release) with wrk; the ratio of a
# round is its route's requests/s over nginx's of that round; the medians of ROUNDS rounds are printed.
#
#   bench/hot.sh [ROUNDS]        # default 3 rounds, DURATION=5 s per wrk run
#   HAR=path/to/har              # another build (default: this tree's release build)
#   ONLY="static 304"            # some routes only (static rows list rendered 304)
#
# Prints one line per route: "route median-ratio ratio1,ratio2,... median-req/s", then "nginx median-req/s".
# bench/run calls it for its first table; alone it is the quick check of a change to the request path.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
ROUNDS=${1:-3}
DURATION=${DURATION:-5}
har=${HAR:-$root/.build/release/har}
work=$(mktemp -d /tmp/har-hot.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
    for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() { for _ in $(seq 1 100); do curl -fs -o /dev/null "$1" && return 0; sleep 0.1; done; echo "hot: $1 never answered" >&2; exit 1; }
wait_warm() { for _ in $(seq 1 300); do grep -q "static files loaded ahead" "$1" && return 0; sleep 0.1; done; echo "hot: static files never loaded" >&2; exit 1; }
rps() { wrk -t2 -c64 -d"${DURATION}s" "$@" | awk '/Requests\/sec/ { print $2 }'; }
wanted() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }

nginx_port=$(free_port)
mkdir -p "$work/nginx/www" "$work/nginx/logs" "$work/data" "$work/list"
cp Public/css/app.css "$work/nginx/www/app.css"
cat > "$work/nginx/nginx.conf" <<CONF
worker_processes 2;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
daemon off;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on; tcp_nopush on; keepalive_requests 100000;
    types { text/css css; }
    server { listen 127.0.0.1:$nginx_port; root $work/nginx/www; etag on; }
}
CONF
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
pids+=($!)
wait_http "http://127.0.0.1:$nginx_port/app.css"

port=$(free_port)
start() {  # data folder, then extra environment
    local dir=$1; shift
    env HAR_PORT=$port HAR_DATA_DIR="$dir" HAR_ACCESS_LOG=false HAR_WORKER_ENABLED=false HAR_BENCHMARK_ROUTES=true \
        "$@" "$har" serve > "$work/har.log" 2>&1 &
    har_pid=$!
    pids+=($har_pid)
    wait_http "http://127.0.0.1:$port/healthz"
    wait_warm "$work/har.log"
}
stop() { kill -TERM "$har_pid"; wait "$har_pid" 2>/dev/null || true; }

start "$work/list"
stop
token=$(bench/list-fixture.sh "$work/list" 200)
cookie="Cookie: har_session=$token"

declare -A ratios figures
nginx_figures=""
for round in $(seq 1 "$ROUNDS"); do
    n=$(rps "http://127.0.0.1:$nginx_port/app.css")
    nginx_figures+="$n "
    add() { ratios[$1]+="$(echo "$2 / $n" | bc -l | xargs printf '%.2f') "; figures[$1]+="$2 "; }
    start "$work/list"
    if wanted static; then add static "$(rps "http://127.0.0.1:$port/static/css/app.css")"; fi
    if wanted rows; then add rows "$(rps "http://127.0.0.1:$port/bench/rows")"; fi
    if wanted list; then add list "$(rps -H "$cookie" "http://127.0.0.1:$port/reports")"; fi
    if wanted 304; then
        tag=$(curl -fs -D - -o /dev/null -H "$cookie" "http://127.0.0.1:$port/reports" \
            | awk 'tolower($1) == "etag:" { print $2 }' | tr -d '\r')
        add 304 "$(rps -H "$cookie" -H "If-None-Match: $tag" "http://127.0.0.1:$port/reports")"
    fi
    stop
    if wanted rendered; then
        start "$work/list" HAR_LIST_KEPT_BYTES=0
        add rendered "$(rps -H "$cookie" "http://127.0.0.1:$port/reports")"
        stop
    fi
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for route in static rows list rendered 304; do
    [ -n "${ratios[$route]:-}" ] || continue
    echo "$route $(echo "${ratios[$route]}" | median) $(echo "${ratios[$route]}" | xargs | tr ' ' ',') $(echo "${figures[$route]}" | median)"
done
echo "nginx $(echo "$nginx_figures" | median)"
