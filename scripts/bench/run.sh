#!/usr/bin/env bash
# Benchmarks cloudplane's hot paths against the fiber-static reference
# server (../shared/bench/baselines), interleaved in one run on one machine,
# and reports cloudplane's figures as ratios of the reference's.
#
#   scripts/bench/run.sh            # 3 rounds of 10 s per measurement
#   ROUNDS=5 DURATION=20s scripts/bench/run.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10s}
WRK="wrk -t2 -c64 -d$DURATION --latency"
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

if ! command -v wrk >/dev/null; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq wrk >/dev/null; else
    echo "wrk is needed (Debian package wrk)"; exit 1; fi
fi

echo "building"
go build -o "$work/cloudplane" ./cmd/cloudplane
go build -o "$work/benchtool" ./scripts/bench/benchtool
baseline="$root/../shared/bench/baselines/fiber-static"
if [ -d "$baseline" ]; then
  (cd "$baseline" && go build -o "$work/fiber-static" .)
else
  echo "no reference server at $baseline: absolute figures only"
fi

echo "seeding 100 accounts x 10 filesystems"
"$work/benchtool" seed --database "$work/bench.db" --accounts 100 --filesystems 10 --keys "$work/keys.txt"
head -n 1 "$work/keys.txt" > "$work/one-key.txt"

wait_healthy() { for _ in $(seq 500); do curl -fs "$1/healthz" >/dev/null && return 0; sleep 0.01; done; echo "$1 not healthy"; exit 1; }
start() { # name port args...
  local name=$1 port=$2; shift 2
  "$@" >"$work/$name.log" 2>&1 & pids+=($!); eval "${name}_pid=$!"
}
start api 18082 "$work/cloudplane" serve --addr 127.0.0.1:18082 --database "$work/bench.db" \
  --rate-limit 1000000/s --rate-burst 1000000 --log-level warn
start flood 18083 "$work/cloudplane" serve --addr 127.0.0.1:18083 --database "$work/bench.db" --log-level warn
wait_healthy http://127.0.0.1:18082; wait_healthy http://127.0.0.1:18083
if [ -x "$work/fiber-static" ]; then
  start static 18081 "$work/fiber-static" -addr 127.0.0.1:18081
  for _ in $(seq 500); do curl -fs -o /dev/null -H 'Authorization: Bearer bench-key-0001' http://127.0.0.1:18081/api/v1/filesystems && break; sleep 0.01; done
fi

rps() { awk '/^Requests\/sec:/ {print $2}' "$1"; }
# p99 in milliseconds: wrk prints us, ms or s, which do not sort as numbers.
p99() { awk '$1 == "99%" { v = $2; f = 1
  if (v ~ /us$/) f = 0.001; else if (v ~ /ms$/) f = 1; else if (v ~ /s$/) f = 1000
  sub(/[a-z]+$/, "", v); printf "%.2f\n", v * f }' "$1"; }
non2xx() { awk '/Non-2xx or 3xx responses:/ {print $5}' "$1"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

path=/api/v1/filesystems
for r in $(seq "$ROUNDS"); do
  echo "round $r/$ROUNDS"
  if [ -x "$work/fiber-static" ]; then
    $WRK -H 'Authorization: Bearer bench-key-0001' "http://127.0.0.1:18081$path" >"$work/static-$r.txt"
  fi
  BENCH_KEYS="$work/keys.txt" $WRK -s scripts/bench/keys.lua "http://127.0.0.1:18082$path" >"$work/list-$r.txt"
  BENCH_KEYS="$work/one-key.txt" $WRK -s scripts/bench/keys.lua "http://127.0.0.1:18083$path" >"$work/flood-$r.txt"
done

list_rps=$(for r in $(seq "$ROUNDS"); do rps "$work/list-$r.txt"; done | median)
list_p99=$(for r in $(seq "$ROUNDS"); do p99 "$work/list-$r.txt"; done | sort -g | tail -n 1)ms
flood_rps=$(for r in $(seq "$ROUNDS"); do rps "$work/flood-$r.txt"; done | median)
flood_rejected=$(non2xx "$work/flood-$ROUNDS.txt")
rss_kib=$(awk '/VmHWM/ {print $2}' "/proc/$api_pid/status")
echo
echo "| measurement | cloudplane | fiber-static | ratio | target |"
echo "|---|---|---|---|---|"
if [ -x "$work/fiber-static" ]; then
  static_rps=$(for r in $(seq "$ROUNDS"); do rps "$work/static-$r.txt"; done | median)
  ratio() { awk -v a="$1" -v b="$static_rps" 'BEGIN {printf "%.3f", a / b}'; }
  echo "| GET $path, 100 keys, req/s (median of $ROUNDS) | $list_rps | $static_rps | $(ratio "$list_rps") | >= 0.25 |"
  echo "| 429 flood from one key, req/s | $flood_rps | $static_rps | $(ratio "$flood_rps") | >= 0.5 |"
else
  echo "| GET $path, 100 keys, req/s | $list_rps | - | - | >= 0.25 |"
  echo "| 429 flood from one key, req/s | $flood_rps | - | - | >= 0.5 |"
fi
static_p99=-
if [ -x "$work/fiber-static" ]; then # the machine's own noise, for context
  static_p99=$(for r in $(seq "$ROUNDS"); do p99 "$work/static-$r.txt"; done | sort -g | tail -n 1)ms
fi
echo "| GET $path p99 (worst round) | $list_p99 | $static_p99 | | <= 15ms |"
echo "| server peak RSS | $((rss_kib / 1024)) MiB | | | <= 64 MiB |"
echo "| flood answers that were not 2xx (last round) | $flood_rejected | | | nearly all |"
echo
"$work/benchtool" startup --binary "$work/cloudplane" --runs 5 | tail -n 1
