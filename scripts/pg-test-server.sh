#!/usr/bin/env bash
# Throwaway PostgreSQL server for the control-plane tests.
#   scripts/pg-test-server.sh start [DIR]   → prints DATABASE_URL (postgres://postgres@127.0.0.1:PORT/postgres)
#   scripts/pg-test-server.sh stop  [DIR]
# DIR defaults to $PG_TEST_DIR or /tmp/screening-pg-test. The port is $PG_TEST_PORT or a free one.
# Installs Debian's postgresql when missing (needs root). Runs initdb/pg_ctl as `postgres`,
# listening on 127.0.0.1 only, trust authentication (tests only).
set -euo pipefail

cmd="${1:-}"
dir="${2:-${PG_TEST_DIR:-/tmp/screening-pg-test}}"

find_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
  done
  return 1
}

as_postgres() {
  if [ "$(id -u)" = "0" ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

case "$cmd" in
  start)
    if ! bin="$(find_bin)"; then
      echo "installing postgresql" >&2
      (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql) >&2
      bin="$(find_bin)"
    fi
    if [ -f "$dir/port" ] && as_postgres "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
      echo "postgres://postgres@127.0.0.1:$(cat "$dir/port")/postgres"
      exit 0
    fi
    mkdir -p "$dir"
    if [ "$(id -u)" = "0" ]; then chown postgres:postgres "$dir"; fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      as_postgres "$bin/initdb" -D "$dir/data" -A trust -U postgres >/dev/null
    fi
    port="${PG_TEST_PORT:-$(free_port)}"
    as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" \
      -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off" -w start >/dev/null
    echo "$port" > "$dir/port"
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    if bin="$(find_bin)" && [ -d "$dir/data" ]; then
      as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start|stop [DIR]" >&2
    exit 2
    ;;
esac
