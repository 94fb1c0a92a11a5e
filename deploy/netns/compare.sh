#!/usr/bin/env bash
# The comparison across a network, on one machine: mock-rates and the payment service each in a
# network namespace of their own (a "host" with its own interfaces), joined to the bench's and
# to each other by veth links, against the same binaries on loopback. The two are run in
# alternation (loopback, namespaces, loopback, ...), so that a drift of the machine falls on both,
# and summarize.py prints each figure's ratio, namespaces over loopback.
#
#   bench (this namespace) --10.231.1.0/24--> api (ns "service") --10.231.2.0/24--> mock-rates (ns "upstream")
#                          --10.231.3.0/24--> mock-rates' admin endpoints
#
# A veth hop is a kernel's, not a wire's: this shows what leaving loopback costs by itself, and
# that the stack runs across hosts; a real network adds its round trips on top.
#
# Needs root (ip netns), iproute2, python3, and release binaries (`cargo build --release -p api
# -p mock-rates -p bench`). Traffic stays in the namespaces it creates; it removes them, and
# stops the processes it started, on exit.
#
# Usage: deploy/netns/compare.sh [--rounds N] [--out DIR] [-- BENCH-ARGS...]
#   BENCH-ARGS default to: --suite latency --suite load --quick --protocol http
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${BIN:-$root/target/release}"
rounds=2
out="$root/target/netns-compare/$(date -u +%Y-%m-%dT%H-%M-%SZ)"
bench_args=(--suite latency --suite load --quick --protocol http)
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --) shift; bench_args=("$@"); break ;;
    *) echo "compare.sh: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
for binary in api mock-rates bench; do
  [ -x "$bin/$binary" ] || { echo "compare.sh: $bin/$binary missing; cargo build --release -p api -p mock-rates -p bench" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "compare.sh: needs root, for ip netns" >&2; exit 2; }
if ip -4 addr show | grep -q ' 10\.231\.[123]\.'; then
  echo "compare.sh: 10.231.1-3.0/24 is already in use on this machine" >&2
  exit 2
fi

# The bench reaches the namespaced mock-rates from another address: its admin endpoints then
# need a token (the loopback stack's children read it too, and the bench sends it to both).
MOCK_RATES_ADMIN_TOKEN="$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
export MOCK_RATES_ADMIN_TOKEN

tag="rl$$"
service_ns="$tag-service"
upstream_ns="$tag-upstream"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  ip netns del "$service_ns" 2>/dev/null || true
  ip netns del "$upstream_ns" 2>/dev/null || true
  # Deleting a namespace deletes the veth ends inside it, and with them their peers.
  for link in "${tag}a" "${tag}c"; do ip link del "$link" 2>/dev/null || true; done
}
trap cleanup EXIT

# link NAME-HERE NS-HERE ADDR-HERE NAME-THERE NS-THERE ADDR-THERE (NS "-" is this namespace)
link() {
  ip link add "$1" type veth peer name "$4"
  for side in "$1 $2 $3" "$4 $5 $6"; do
    set -- $side
    if [ "$2" != "-" ]; then
      ip link set "$1" netns "$2"
      ip netns exec "$2" ip addr add "$3/24" dev "$1"
      ip netns exec "$2" ip link set "$1" up
    else
      ip addr add "$3/24" dev "$1"
      ip link set "$1" up
    fi
  done
}
ip netns add "$service_ns"
ip netns add "$upstream_ns"
ip netns exec "$service_ns" ip link set lo up
ip netns exec "$upstream_ns" ip link set lo up
link "${tag}a" - 10.231.1.1 "${tag}b" "$service_ns" 10.231.1.2
link "${tag}c" - 10.231.3.1 "${tag}d" "$upstream_ns" 10.231.3.2
link "${tag}e" "$service_ns" 10.231.2.1 "${tag}f" "$upstream_ns" 10.231.2.2

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_healthy() { # BINARY URL
  for _ in $(seq 100); do "$bin/$1" --probe "$2" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "compare.sh: $2 did not turn healthy" >&2
  exit 1
}
mkdir -p "$out"
in_ns() { # NS COMMAND... (NS "-" is this namespace)
  local ns="$1"
  shift
  if [ "$ns" = "-" ]; then "$@"; else ip netns exec "$ns" "$@"; fi
}
spawn() { # NS LOG COMMAND...: in the background, its PID kept for the clean-up
  local ns="$1" log="$2"
  shift 2
  # A simple command, not a function, goes to the background: $! is then the program itself
  # (ip netns exec execs it), so that the clean-up stops the program, not a subshell.
  if [ "$ns" = "-" ]; then "$@" >"$log" 2>&1 & else ip netns exec "$ns" "$@" >"$log" 2>&1 & fi
  pids+=($!)
}
# start_stack NAME API-NS MOCK-NS MOCK-LISTEN MOCK-URL-FOR-BENCH MOCK-URL-FOR-API API-HOST API-PORT
start_stack() {
  spawn "$3" "$out/$1-mock-rates.log" "$bin/mock-rates" --listen "$4"
  wait_healthy mock-rates "$5/health"
  in_ns "$2" "$bin/api" --probe "$6/health" >/dev/null \
    || { echo "compare.sh: $1: the api's side does not reach mock-rates at $6" >&2; exit 1; }
  spawn "$2" "$out/$1-api.log" \
    env APP__SERVER__HOST="$7" APP__SERVER__PORT="$8" APP__RATES__BASE_URL="$6" "$bin/api"
}
lo_mock="http://127.0.0.1:$(free_port)"
lo_api_port="$(free_port)"
start_stack loopback - - "${lo_mock#http://}" "$lo_mock" "$lo_mock" 127.0.0.1 "$lo_api_port"
wait_healthy api "http://127.0.0.1:$lo_api_port/health/ready"
start_stack netns "$service_ns" "$upstream_ns" 0.0.0.0:8081 http://10.231.3.2:8081 http://10.231.2.2:8081 0.0.0.0 8080
wait_healthy api http://10.231.1.2:8080/health/ready

for round in $(seq "$rounds"); do
  for where in loopback netns; do
    if [ "$where" = loopback ]; then
      urls=(--api-url "http://127.0.0.1:$lo_api_port" --mock-url "$lo_mock")
    else
      urls=(--api-url http://10.231.1.2:8080 --mock-url http://10.231.3.2:8081)
    fi
    echo "== round $round: $where"
    "$bin/bench" "${bench_args[@]}" "${urls[@]}" --out "$out/$where-$round" >"$out/$where-$round.log" 2>&1 \
      || { echo "compare.sh: bench failed, see $out/$where-$round.log" >&2; tail -5 "$out/$where-$round.log" >&2; exit 1; }
  done
done
python3 "$root/deploy/netns/summarize.py" "$out" "$rounds" | tee "$out/summary.md"
