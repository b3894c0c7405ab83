# Read benchmark, sourced by run.sh: GET /api/v1/filesystems at 64
# connections over 20 accounts' keys, against fiber-static, interleaved.
# cloudplane runs three ways, from one database:
#   default: the defaults (access log on, metrics off), rate limit lifted;
#   full:    the same with --metrics-addr, so access log and metrics on;
#   bare:    --access-log=false, metrics off: no observability at all.
# full against bare is what the access log and the request metrics cost.
# A fourth server keeps every default, rate limit included, and is flooded
# from one key: refusing is a read path too.
echo "seeding 20 accounts x 10 filesystems"
"$work/benchtool" seed --database "$work/bench.db" --accounts 20 --filesystems 10 --keys "$work/keys.txt"
head -n 1 "$work/keys.txt" > "$work/one-key.txt"

# --rate-limit off is the only flag lifted: at the default 1 request/s per
# account the benchmark would measure refusals.
start api 18082 "$work/cloudplane" serve --addr 127.0.0.1:18082 --database "$work/bench.db" --rate-limit off
start full 18087 "$work/cloudplane" serve --addr 127.0.0.1:18087 --database "$work/bench.db" --rate-limit off \
  --metrics-addr 127.0.0.1:18088
start bare 18089 "$work/cloudplane" serve --addr 127.0.0.1:18089 --database "$work/bench.db" --rate-limit off \
  --access-log=false
start flood 18083 "$work/cloudplane" serve --addr 127.0.0.1:18083 --database "$work/bench.db"
for port in 18082 18087 18089 18083; do wait_healthy "http://127.0.0.1:$port"; done
if [ -x "$work/fiber-static" ]; then
  start static 18081 "$work/fiber-static" -addr 127.0.0.1:18081
  for _ in $(seq 500); do curl -fs -o /dev/null -H 'Authorization: Bearer bench-key-0001' http://127.0.0.1:18081/api/v1/filesystems && break; sleep 0.01; done
fi

path=/api/v1/filesystems
read_servers="api=18082 full=18087 bare=18089"
# cpu_ticks pid: the CPU time the process used so far, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
requests() { awk '/ requests in / {print $1}' "$1"; }
for r in $(seq "$ROUNDS"); do
  echo "round $r/$ROUNDS (load average: $(loadavg))"
  if [ -x "$work/fiber-static" ]; then
    t0=$(cpu_ticks "$static_pid")
    $WRK -H 'Authorization: Bearer bench-key-0001' "http://127.0.0.1:18081$path" >"$work/static-$r.txt"
    echo "$t0 $(cpu_ticks "$static_pid") $(requests "$work/static-$r.txt")" >"$work/static-$r.cpu"
  fi
  # Every other round in reverse order: the host's speed drifts by 10-20%
  # within minutes, and a fixed order hands the drift to one server (a
  # 3-round run read the access log's cost as 11.9%; alternating pairs of
  # 8-s runs of the same build, 3%).
  order=$read_servers
  if [ $((r % 2)) = 0 ]; then order=$(echo "$read_servers" | tr ' ' '\n' | tac | tr '\n' ' '); fi
  for s in $order; do
    name=${s%%=*}; eval "pid=\$${name}_pid"
    t0=$(cpu_ticks "$pid")
    BENCH_KEYS="$work/keys.txt" $WRK -s scripts/bench/keys.lua "http://127.0.0.1:${s#*=}$path" >"$work/$name-$r.txt"
    echo "$t0 $(cpu_ticks "$pid") $(requests "$work/$name-$r.txt")" >"$work/$name-$r.cpu"
  done
  BENCH_KEYS="$work/one-key.txt" $WRK -s scripts/bench/keys.lua "http://127.0.0.1:18083$path" >"$work/flood-$r.txt"
done

med_rps() { for r in $(seq "$ROUNDS"); do rps "$work/$1-$r.txt"; done | median; }
# The server's CPU time per request, in microseconds (median of rounds):
# steadier than req/s on a machine whose other load varies, since the
# CPU a request costs hardly depends on how much of the CPU it gets.
tick_us=$((1000000 / $(getconf CLK_TCK)))
cpu_us() { for r in $(seq "$ROUNDS"); do awk -v t="$tick_us" '{printf "%.1f\n", ($2 - $1) * t / $3}' "$work/$1-$r.cpu"; done | median; }
worst_p99() { for r in $(seq "$ROUNDS"); do p99 "$work/$1-$r.txt"; done | sort -g | tail -n 1; }
errors() { for r in $(seq "$ROUNDS"); do echo "$(non2xx "$work/$1-$r.txt") $(sockerr "$work/$1-$r.txt")"; done |
  awk '{n += $1; s += $2} END {print n + 0 " / " s + 0}'; }
static_rps=- static_p99=-
if [ -x "$work/fiber-static" ]; then
  static_rps=$(med_rps static) static_p99=$(worst_p99 static)
fi
vs() { if [ "$static_rps" = - ]; then echo -; else ratio "$1" "$static_rps"; fi; }
api_rps=$(med_rps api) full_rps=$(med_rps full) bare_rps=$(med_rps bare) flood_rps=$(med_rps flood)
echo
static_cpu=-
[ -x "$work/fiber-static" ] && static_cpu=$(cpu_us static)
api_cpu=$(cpu_us api) full_cpu=$(cpu_us full) bare_cpu=$(cpu_us bare)
echo "| GET $path, 64 conns, 20 keys | req/s (median of $ROUNDS) | vs fiber-static | p99 (worst round) | server CPU per request | non-2xx / socket errors | target |"
echo "|---|---|---|---|---|---|---|"
echo "| fiber-static (the stack's limit) | $static_rps | 1 | ${static_p99}ms | ${static_cpu} us | $(errors static) | |"
echo "| cloudplane, defaults (access log on, metrics off; --rate-limit off) | $api_rps | $(vs "$api_rps") | $(worst_p99 api)ms | ${api_cpu} us | $(errors api) | >= 0.5, p99 <= 10 ms |"
echo "| cloudplane, access log + metrics on | $full_rps | $(vs "$full_rps") | $(worst_p99 full)ms | ${full_cpu} us | $(errors full) | |"
echo "| cloudplane, access log + metrics off | $bare_rps | $(vs "$bare_rps") | $(worst_p99 bare)ms | ${bare_cpu} us | $(errors bare) | |"
echo "| 429 flood from one key, all defaults | $flood_rps | $(vs "$flood_rps") | $(worst_p99 flood)ms | | (non-2xx expected) | >= 0.5 |"
echo
echo "| observability cost, 64 conns (medians) | req/s lost | same, from CPU per request (steadier) | target |"
echo "|---|---|---|---|"
echo "| access log + request metrics (on vs off) | $(cost "$full_rps" "$bare_rps") | $(cost "$bare_cpu" "$full_cpu") | <= 5% |"
echo "| access log alone (defaults vs off) | $(cost "$api_rps" "$bare_rps") | $(cost "$bare_cpu" "$api_cpu") | |"
echo "| server peak RSS, defaults, during reads | $(peak_rss "$api_pid") MiB | <= 64 MiB |"
echo
"$work/benchtool" startup --binary "$work/cloudplane" --runs 5 | tail -n 1
kill "$api_pid" "$full_pid" "$bare_pid" "$flood_pid" ${static_pid:-} 2>/dev/null || true
