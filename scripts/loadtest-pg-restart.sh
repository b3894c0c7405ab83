#!/usr/bin/env bash
# Restarts the local PostgreSQL server under load: the load test runs on a
# fresh database of the Debian cluster that listens on port 5432, stops
# the cluster a third of the way in, starts it again 5 s later, and fails
# unless every answer meanwhile is the contract's JSON 503 with
# Retry-After and service is whole within 5 s of the database's return,
# from the same server process. Flags are passed to cmd/loadtest:
#
#   scripts/loadtest-pg-restart.sh                         # 200 clients x 45 s
#   scripts/loadtest-pg-restart.sh -clients 64 -duration 30s
#
# Needs pg_ctlcluster (Debian's postgresql-common) and the right to run
# it (root or the cluster's owner); says so and exits 0 when it cannot.
set -euo pipefail
cd "$(dirname "$0")/.."
url=${CLOUDPLANE_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
port=${PGPORT:-5432}

if ! command -v pg_lsclusters >/dev/null; then
  echo "SKIPPED: no pg_lsclusters here (Debian's postgresql-common), so no cluster to restart"
  exit 0
fi
read -r version cluster owner < <(pg_lsclusters -h | awk -v p="$port" '$3 == p && $4 == "online" {print $1, $2, $5; exit}') || true
if [ -z "${version:-}" ]; then
  echo "SKIPPED: no online PostgreSQL cluster on port $port"
  exit 0
fi
if [ "$(id -u)" != 0 ] && [ "$(id -un)" != "$owner" ]; then
  echo "SKIPPED: restarting cluster $version/$cluster needs root or $owner"
  exit 0
fi
echo "restarting PostgreSQL $version/$cluster (port $port) under load"
go run ./cmd/loadtest -database "$url" -clients 200 -duration 45s \
  -outage-stop "pg_ctlcluster $version $cluster stop -m fast" \
  -outage-start "pg_ctlcluster $version $cluster start" "$@"
