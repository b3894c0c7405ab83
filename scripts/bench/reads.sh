# Read benchmark, sourced by run.sh: GET /api/v1/filesystems against fiber-static.
echo "seeding 100 accounts x 10 filesystems"
"$work/benchtool" seed --database "$work/bench.db" --accounts 100 --filesystems 10 --keys "$work/keys.txt"
head -n 1 "$work/keys.txt" > "$work/one-key.txt"

start api 18082 "$work/cloudplane" serve --addr 127.0.0.1:18082 --database "$work/bench.db" \
  --rate-limit 1000000/s --rate-burst 1000000 --log-level warn
start flood 18083 "$work/cloudplane" serve --addr 127.0.0.1:18083 --database "$work/bench.db" --log-level warn
wait_healthy http://127.0.0.1:18082; wait_healthy http://127.0.0.1:18083
if [ -x "$work/fiber-static" ]; then
  start static 18081 "$work/fiber-static" -addr 127.0.0.1:18081
  for _ in $(seq 500); do curl -fs -o /dev/null -H 'Authorization: Bearer bench-key-0001' http://127.0.0.1:18081/api/v1/filesystems && break; sleep 0.01; done
fi

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
  echo "| GET $path, 100 keys, req/s (median of $ROUNDS) | $list_rps | $static_rps | $(ratio "$list_rps" "$static_rps") | >= 0.25 |"
  echo "| 429 flood from one key, req/s | $flood_rps | $static_rps | $(ratio "$flood_rps" "$static_rps") | >= 0.5 |"
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
kill "$api_pid" "$flood_pid" ${static_pid:-} 2>/dev/null || true
