# Write benchmark, sourced by run.sh: POST /api/v1/filesystems with unique
# names over 20 accounts' keys, at 4 and 64 connections; cloudplane on
# SQLite against the naive fiber-gorm-sqlite baseline (a GORM key lookup,
# then the filesystem and an audit row in one transaction), interleaved,
# and when PG_URL is set cloudplane on PostgreSQL against the same naive
# server given -db postgres://. cloudplane runs with its defaults (access
# log on) but for the rate limits, lifted: they would measure refusals.
# wrk waits up to 30 s for an answer, so that slow answers count in the
# latencies instead of vanishing as timeouts.
serve_writes() { # name port database: seed 20 accounts and serve them
  # The quota is out of reach: the benchmark measures creates, not refusals.
  "$work/benchtool" seed --database "$3" --accounts 20 --filesystems 0 \
    --filesystem-quota 100000000 --keys "$work/$1-keys.txt"
  start "$1" "$2" "$work/cloudplane" serve --addr "127.0.0.1:$2" --database "$3" \
    --rate-limit off --launch-rate-limit off
  wait_healthy "http://127.0.0.1:$2"
}
echo "seeding 20 accounts for writes"
serve_writes sqlite 18084 "$work/write.db"
targets="sqlite=http://127.0.0.1:18084"
if [ -x "$work/fiber-gorm-sqlite" ]; then
  for i in $(seq 20); do printf 'bench-key-%04d\n' "$i"; done >"$work/naive-keys.txt"
  start naive 18085 "$work/fiber-gorm-sqlite" -addr 127.0.0.1:18085 -db "$work/naive.db"
  for _ in $(seq 500); do curl -fs -o /dev/null -H 'Authorization: Bearer bench-key-0001' http://127.0.0.1:18085/api/v1/filesystems && break; sleep 0.01; done
  targets="naive=http://127.0.0.1:18085 $targets"
fi
if [ -n "$PG_URL" ]; then
  pgdb=$("$work/benchtool" pgdb create --url "$PG_URL"); pgdbs+=("$pgdb")
  if [ -x "$work/fiber-gorm-sqlite" ]; then
    naive_pgdb=$("$work/benchtool" pgdb create --url "$PG_URL"); pgdbs+=("$naive_pgdb")
    cp "$work/naive-keys.txt" "$work/naive_pg-keys.txt"
    start naive_pg 18090 "$work/fiber-gorm-sqlite" -addr 127.0.0.1:18090 -db "$naive_pgdb"
    for _ in $(seq 1000); do curl -fs -o /dev/null -H 'Authorization: Bearer bench-key-0001' http://127.0.0.1:18090/api/v1/filesystems && break; sleep 0.01; done
    targets="$targets naive_pg=http://127.0.0.1:18090"
  fi
  serve_writes postgres 18086 "$pgdb"
  targets="$targets postgres=http://127.0.0.1:18086"
else
  echo "no BENCH_POSTGRES_URL or CLOUDPLANE_TEST_POSTGRES_URL: writes on SQLite only"
fi

for r in $(seq "$ROUNDS"); do
  echo "round $r/$ROUNDS (load average: $(loadavg))"
  for c in 64 4; do
    for t in $targets; do
      name=${t%%=*}
      # Each run starts with the disk's writeback done: the SQLite servers
      # leave hundreds of MiB of dirty pages, which the kernel otherwise
      # writes out during the next server's run (PostgreSQL's p99 at 64
      # connections: 60-64 ms after a SQLite run, 50 with the sync).
      sync
      BENCH_KEYS="$work/$name-keys.txt" BENCH_PREFIX="r$r-c$c" wrk -t2 -c$c -d"$DURATION" --timeout 30s --latency \
        -s scripts/bench/create.lua "${t#*=}/api/v1/filesystems" >"$work/post-$name-c$c-$r.txt"
    done
  done
done

echo
# The first round of each server is its first seconds after start (an
# empty pool of prepared statements and caches, on PostgreSQL fresh server
# processes), so the worst round is usually that one: the rounds after it
# are shown beside it, as the server runs once warm.
echo "| POST /api/v1/filesystems | conns | creates/s (median of $ROUNDS) | p99 (worst round) | p99 (worst after round 1) | non-2xx / socket errors (all rounds) | vs naive on the same database | target |"
echo "|---|---|---|---|---|---|---|---|"
for c in 64 4; do
  for t in $targets; do
    name=${t%%=*}
    f() { for r in $(seq "$ROUNDS"); do "$1" "$work/post-$name-c$c-$r.txt"; done; }
    w_rps=$(f rps | median)
    w_p99=$(f p99 | sort -g | tail -n 1)
    w_p99warm=$(f p99 | tail -n +2 | sort -g | tail -n 1)
    w_err="$(f non2xx | awk '{n += $1} END {print n + 0}') / $(f sockerr | awk '{n += $1} END {print n}')"
    eval "rps_${name}=$w_rps"
    vs=- target=
    case "$name" in
      sqlite) [ -n "${rps_naive:-}" ] && vs=$(ratio "$w_rps" "$rps_naive")x
        target=$([ "$c" = 64 ] && echo ">= 2x, p99 <= 25 ms, 0 errors" || echo "p99 <= 5 ms, 0 errors") ;;
      postgres) [ -n "${rps_naive_pg:-}" ] && vs=$(ratio "$w_rps" "$rps_naive_pg")x
        [ "$c" = 64 ] && target=">= 3x, p99 <= 50 ms, 0 errors" ;;
    esac
    echo "| $name | $c | $w_rps | ${w_p99}ms | ${w_p99warm:--}${w_p99warm:+ms} | $w_err | $vs | $target |"
  done
  unset rps_naive rps_naive_pg
done
echo
echo "| server peak RSS during the write benchmark | MiB | target |"
echo "|---|---|---|"
echo "| cloudplane on SQLite | $(peak_rss "$sqlite_pid") | <= 64 MiB |"
[ -n "${postgres_pid:-}" ] && echo "| cloudplane on PostgreSQL | $(peak_rss "$postgres_pid") | |"
[ -n "${naive_pid:-}" ] && echo "| naive fiber-gorm-sqlite | $(peak_rss "$naive_pid") | |"
kill ${sqlite_pid:-} ${naive_pid:-} ${postgres_pid:-} ${naive_pg_pid:-} 2>/dev/null || true
