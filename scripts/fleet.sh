#!/usr/bin/env bash
# A tool-host fleet on one machine: Redis, N identical `tool-host serve --http --store`
# replicas and nginx in front of them, all on loopback, as deploy/README.md describes.
#
# Usage:
#   scripts/fleet.sh start DIR [--port P] [--replicas N] [--ports "P1 P2 .."] [--redis-port R]
#                              [--tool-host PATH] [-- SERVE_ARGS..]
#   scripts/fleet.sh stop DIR
#   scripts/fleet.sh kill-replica DIR I     (SIGKILL replica I, 1-based)
#   scripts/fleet.sh stop-replica DIR I     (SIGTERM replica I and wait until it exits)
#   scripts/fleet.sh restart-redis DIR      (SIGKILL Redis, then start it again on its files)
# `start` writes everything (configs, logs, pids, Redis's append-only file) under DIR, waits
# until every part answers, and prints the MCP URL (`http://127.0.0.1:P/mcp`) on its last line.
# Defaults: nginx on 8080, 3 replicas on 8081.. (--ports lists them instead), Redis on 6380,
# tool-host built by `cargo build` in this repository (wherever its target directory is) unless
# --tool-host names a binary, round robin with no affinity (--session-affinity pins each MCP
# 2025-11-25 session to one replica; see deploy/nginx.conf.in). SERVE_ARGS go to every
# replica (e.g. --root DIR --task-lease 5).
# A start whose ports are taken, or any part of which does not come up, stops what it started
# and fails.
# Needs: redis-server and nginx (Debian packages redis-server, nginx-light), curl, python3.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

command="${1:-}"
dir="${2:-}"
if [ -z "$command" ] || [ -z "$dir" ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2
    exit 2
fi
shift 2
if [ "$command" = start ]; then
    case "$dir" in
        *[[:space:]]*) echo "fleet: DIR must not contain spaces (nginx's configuration names paths in it)" >&2; exit 2 ;;
    esac
    mkdir -p "$dir"
elif [ ! -d "$dir" ]; then
    echo "fleet: no fleet in $dir (nothing was started there)" >&2
    exit 1
fi
dir="$(cd "$dir" && pwd)"

stop_pid() {
    local file="$1" signal="${2:-TERM}"
    if [ -f "$file" ]; then
        local pid
        pid="$(cat "$file")"
        kill "-$signal" "$pid" 2>/dev/null || true
        for _ in $(seq 1 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        rm -f "$file"
    fi
}

# Waits until $1 answers; with a pidfile $3, fails as soon as that process has exited.
wait_http() {
    local url="$1" what="$2" pidfile="${3:-}"
    for _ in $(seq 1 200); do
        if curl -fs -o /dev/null --max-time 1 "$url"; then
            return 0
        fi
        if [ -n "$pidfile" ] && ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
            local log="${pidfile%.pid}.log"
            echo "fleet: $what exited before answering; the end of $log:" >&2
            tail -n 5 "$log" >&2 || true
            return 1
        fi
        sleep 0.05
    done
    echo "fleet: $what did not answer at $url; see $dir/*.log" >&2
    return 1
}

start_redis() {
    local redis_port
    redis_port="$(cat "$dir/redis.port")"
    redis-server "$repo/deploy/redis.conf" --port "$redis_port" --dir "$dir" \
        --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --daemonize yes
    for _ in $(seq 1 100); do
        redis-cli -p "$redis_port" ping >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    echo "fleet: Redis did not answer on port $redis_port; see $dir/redis.log" >&2
    return 1
}

# Fails when something already listens on 127.0.0.1:$1.
port_free() {
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
        echo "fleet: port $1 is taken (another fleet running? scripts/fleet.sh stop DIR)" >&2
        return 1
    fi
}

# Fails unless the process of pidfile $1 is alive.
alive() {
    if ! kill -0 "$(cat "$1" 2>/dev/null)" 2>/dev/null; then
        echo "fleet: $(basename "$1" .pid) is not running; see $dir/*.log" >&2
        return 1
    fi
}

case "$command" in
start)
    port=8080
    replicas=3
    ports=""
    redis_port=6380
    tool_host=""
    serve_args=()
    affinity=0
    while [ $# -gt 0 ]; do
        case "$1" in
            --port) port="$2"; shift 2 ;;
            --replicas) replicas="$2"; shift 2 ;;
            --ports) ports="$2"; shift 2 ;;
            --redis-port) redis_port="$2"; shift 2 ;;
            --tool-host) tool_host="$2"; shift 2 ;;
            --session-affinity) affinity=1; shift ;;
            --) shift; serve_args=("$@"); break ;;
            *) echo "fleet: unknown option $1" >&2; exit 2 ;;
        esac
    done
    if [ -z "$ports" ]; then
        ports="$(seq -s ' ' $((port + 1)) $((port + replicas)))"
    fi
    for needed in redis-server redis-cli nginx curl python3; do
        command -v "$needed" >/dev/null || {
            echo "fleet: $needed is not installed (Debian: apt-get install redis-server nginx curl python3)" >&2
            exit 1
        }
    done
    if [ -z "$tool_host" ]; then
        # Built (or found up to date) by cargo, which says where: `CARGO_TARGET_DIR` and
        # `build.target-dir` move it.
        tool_host="$(cd "$repo" && cargo build -q -p tool-examples --bin tool-host \
            --message-format=json-render-diagnostics | python3 -c '
import json, sys
for line in sys.stdin:
    if not line.startswith("{"):
        continue
    message = json.loads(line)
    if message.get("reason") == "compiler-artifact" and message["target"]["name"] == "tool-host":
        print(message["executable"])
')" || { echo "fleet: building tool-host failed (cargo's errors above)" >&2; exit 1; }
    fi
    tool_host="$(command -v "$tool_host" || true)"
    if [ -z "$tool_host" ] || [ ! -x "$tool_host" ]; then
        echo "fleet: no tool-host binary to run (--tool-host PATH names one)" >&2
        exit 1
    fi
    for taken in "$port" "$redis_port" $ports; do
        port_free "$taken"
    done
    trap 'echo "fleet: the start failed; stopping what started" >&2; "$0" stop "$dir"' ERR

    echo "$redis_port" > "$dir/redis.port"
    start_redis

    i=0
    upstreams=""
    for replica_port in $ports; do
        i=$((i + 1))
        "$tool_host" serve --http "127.0.0.1:$replica_port" \
            --store "redis://127.0.0.1:$redis_port/" "${serve_args[@]}" \
            > "$dir/replica-$i.log" 2>&1 &
        echo $! > "$dir/replica-$i.pid"
        upstreams+="        server 127.0.0.1:$replica_port max_fails=1 fail_timeout=2s;"$'\n'
    done
    i=0
    for replica_port in $ports; do
        i=$((i + 1))
        wait_http "http://127.0.0.1:$replica_port/readyz" "replica $i (port $replica_port)" \
            "$dir/replica-$i.pid"
    done
    for pidfile in "$dir"/replica-*.pid "$dir/redis.pid"; do
        alive "$pidfile"
    done

    mkdir -p "$dir/nginx-body" "$dir/nginx-proxy" "$dir/nginx-fastcgi" "$dir/nginx-uwsgi" "$dir/nginx-scgi"
    python3 - "$repo/deploy/nginx.conf.in" "$dir/nginx.conf" "$dir" "127.0.0.1:$port" "$upstreams" "$affinity" <<'PY'
import sys
template, out, run, listen, upstreams, affinity = sys.argv[1:]
text = open(template).read()
if affinity == "1":
    text = text.replace("# hash $http_mcp_session_id consistent;", "hash $http_mcp_session_id consistent;")
text = text.replace("@RUN@", run).replace("@LISTEN@", listen).replace("@UPSTREAMS@", upstreams.rstrip("\n"))
open(out, "w").write(text)
PY
    nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/nginx-error.log" > "$dir/nginx.log" 2>&1 &
    echo $! > "$dir/nginx.pid.launcher"
    wait_http "http://127.0.0.1:$port/readyz" "nginx"
    alive "$dir/nginx.pid"
    trap - ERR
    echo "http://127.0.0.1:$port/mcp"
    ;;
stop)
    stop_pid "$dir/nginx.pid" QUIT
    rm -f "$dir/nginx.pid.launcher"
    for pidfile in "$dir"/replica-*.pid; do
        [ -e "$pidfile" ] && stop_pid "$pidfile" TERM
    done
    stop_pid "$dir/redis.pid" TERM
    ;;
kill-replica)
    index="${1:?replica number}"
    stop_pid "$dir/replica-$index.pid" KILL
    ;;
stop-replica)
    index="${1:?replica number}"
    stop_pid "$dir/replica-$index.pid" TERM
    ;;
restart-redis)
    stop_pid "$dir/redis.pid" KILL
    start_redis
    ;;
*)
    echo "fleet: unknown command $command" >&2
    exit 2
    ;;
esac
