# Webhook delivery benchmark, sourced by run.sh: cloudplane with its
# default flags except --rate-limit off (tickets come faster than one
# account's API limit) and --webhook-allow-private (the receiver is
# benchtool on loopback, plain http); 100 accounts each with one endpoint
# subscribed to ticket.created, tickets created through the API. benchtool
# serves the receiver (204 at once) and prints the rows: deliveries/s to 1,
# 10 and 100 endpoints; answer-to-receipt p50/p99 at 200 and 400 tickets/s
# (open loop); the same at 400/s while an 11th account's receiver hangs.
# On SQLite, and on PostgreSQL when PG_URL is set.
serve_webhooks() { # name port database
  "$work/benchtool" webhooks seed --database "$3" --accounts 100 --receiver 127.0.0.1:18191 \
    --keys "$work/$1-hook-keys.txt"
  start "$1_hooks" "$2" "$work/cloudplane" serve --addr "127.0.0.1:$2" --database "$3" \
    --rate-limit off --webhook-allow-private
  wait_healthy "http://127.0.0.1:$2"
}
hook_targets="sqlite=18192=$work/hooks.db"
if [ -n "$PG_URL" ]; then
  hook_pgdb=$("$work/benchtool" pgdb create --url "$PG_URL")
  hook_targets="$hook_targets postgres=18193=$hook_pgdb"
else
  echo "no BENCH_POSTGRES_URL or CLOUDPLANE_TEST_POSTGRES_URL: webhooks on SQLite only"
fi
hook_rows=()
for t in $hook_targets; do
  name=${t%%=*}; rest=${t#*=}; port=${rest%%=*}; db=${rest#*=}
  echo "seeding 101 accounts with webhooks ($name)"
  serve_webhooks "$name" "$port" "$db"
  "$work/benchtool" webhooks run --api "http://127.0.0.1:$port" --keys "$work/$name-hook-keys.txt" \
    --receiver 127.0.0.1:18191 --duration "$DURATION" --label "$name" >"$work/hooks-$name.txt"
  eval "kill \${${name}_hooks_pid} 2>/dev/null || true"
done
echo
echo "| database | webhook measurement | figure | notes | target |"
echo "|---|---|---|---|---|"
for t in $hook_targets; do cat "$work/hooks-${t%%=*}.txt"; done
if [ -n "${hook_pgdb:-}" ]; then
  wait "${postgres_hooks_pid:-}" 2>/dev/null || true
  "$work/benchtool" pgdb drop --url "$hook_pgdb" || true
fi
