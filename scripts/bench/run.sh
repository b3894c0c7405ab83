#!/usr/bin/env bash
# Benchmarks cloudplane's hot paths against the reference servers in
# ../shared/bench/baselines, interleaved in one run on one machine, and
# reports cloudplane's figures as ratios of the references'. Servers run
# with their DEFAULT flags, as users run them (logging on); the only flags
# lifted are the rate limits, which would otherwise measure refusals.
#   reads:    GET /api/v1/filesystems (64 conns, 20 accounts' keys) against
#             fiber-static, beside the same server with the access log and
#             metrics both on and both off (the cost of observability);
#   writes:   POST /api/v1/filesystems (unique names, 20 accounts' keys) at
#             4 and 64 connections against the naive fiber-gorm-sqlite, on
#             SQLite, and on PostgreSQL against the same naive server on
#             PostgreSQL when BENCH_POSTGRES_URL (or
#             CLOUDPLANE_TEST_POSTGRES_URL) names a server; peak RSS;
#   loadtest, webhooks: scripts/bench/loadtest.sh, webhooks.sh, when there.
# A part whose script is missing is skipped.
#
#   scripts/bench/run.sh            # 3 rounds of 10 s per measurement
#   ROUNDS=5 DURATION=20s scripts/bench/run.sh
#   PARTS=writes scripts/bench/run.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10s}
PARTS=${PARTS:-reads writes loadtest webhooks}
PG_URL=${BENCH_POSTGRES_URL:-${CLOUDPLANE_TEST_POSTGRES_URL:-}}
WRK="wrk -t2 -c64 -d$DURATION --latency"
work=$(mktemp -d)
pids=()
pgdbs=() # PostgreSQL databases created for the run, dropped at its end
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for d in "${pgdbs[@]}"; do "$work/benchtool" pgdb drop --url "$d" || true; done
  rm -rf "$work"
}
trap cleanup EXIT

if ! command -v wrk >/dev/null; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq wrk >/dev/null; else
    echo "wrk is needed (Debian package wrk)"; exit 1; fi
fi

echo "building"
go build -o "$work/cloudplane" ./cmd/cloudplane
go build -o "$work/benchtool" ./scripts/bench/benchtool
baselines="$root/../shared/bench/baselines"
for b in fiber-static fiber-gorm-sqlite; do
  if [ -d "$baselines/$b" ]; then
    (cd "$baselines/$b" && go build -o "$work/$b" .)
  else
    echo "no reference server at $baselines/$b: cloudplane's absolute figures only, no ratios"
  fi
done

wait_healthy() { for _ in $(seq 500); do curl -fs "$1/healthz" >/dev/null && return 0; sleep 0.01; done; echo "$1 not healthy"; exit 1; }
start() { # name port args...
  local name=$1 port=$2; shift 2
  "$@" >"$work/$name.log" 2>&1 & pids+=($!); eval "${name}_pid=$!"
}
rps() { awk '/^Requests\/sec:/ {print $2}' "$1"; }
# p99 in milliseconds: wrk prints us, ms or s, which do not sort as numbers.
p99() { awk '$1 == "99%" { v = $2; f = 1
  if (v ~ /us$/) f = 0.001; else if (v ~ /ms$/) f = 1; else if (v ~ /s$/) f = 1000
  sub(/[a-z]+$/, "", v); printf "%.2f\n", v * f }' "$1"; }
non2xx() { awk '/Non-2xx or 3xx responses:/ {print $5}' "$1"; }
# wrk's socket errors (connect, read, write, timeout); non2xx counts the rest.
sockerr() { awk '/Socket errors:/ {gsub(",", ""); n += $4 + $6 + $8 + $10} END {print n + 0}' "$1"; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
# cost a b: how much slower a is than b, in % of b.
cost() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f%%", 100 * (b - a) / b}'; }
# peak_rss pid: the process's peak resident memory so far, in MiB.
peak_rss() { awk '/VmHWM/ {printf "%d", $2 / 1024}' "/proc/$1/status"; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

echo "start: $(date -u +%FT%TZ), $(nproc) CPUs, load average $(loadavg)"
for part in $PARTS; do
  if [ ! -f "$root/scripts/bench/$part.sh" ]; then
    echo "== $part: skipped, no scripts/bench/$part.sh"
    continue
  fi
  echo "== $part (load average: $(loadavg))"
  source "$root/scripts/bench/$part.sh"
done
echo "end: load average $(loadavg)"
