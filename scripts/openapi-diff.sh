#!/usr/bin/env bash
# Compares the served OpenAPI document of this tree with that of another commit (default: the
# parent commit), byte for byte. Both services start on a free port with an empty data directory
# and no list sources (the document does not depend on them) and the same PUBLIC_BASE_URL.
#   bash scripts/openapi-diff.sh [COMMIT]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
base="${1:-HEAD^}"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/base" "$work/sources"
git -C "$root" archive "$base" | tar -x -C "$work/base"
ln -s "$root/node_modules" "$work/base/node_modules"

# Starts the service of tree $1 and writes its /api/v1/openapi.json to $2.
fetch_document() {
  local tree="$1" out="$2" data log port=""
  data="$(mktemp -d -p "$work")"
  log="$data/service.log"
  (cd "$tree" && PORT=0 HOST=127.0.0.1 DATA_DIR="$data" SOURCE_DIR="$work/sources" LIST_REFRESH_ENABLED=false \
    PUBLIC_BASE_URL=http://localhost:8080 ENGINE_SHARDS=1 LOG_LEVEL=info exec node --import tsx src/main.ts >"$log" 2>&1) &
  pids+=("$!")
  for _ in $(seq 1 600); do
    port="$(grep -o '"port":[0-9]*[^}]*"msg":"listening"' "$log" 2>/dev/null | grep -o '^"port":[0-9]*' | cut -d: -f2 || true)"
    [ -n "$port" ] && break
    sleep 0.2
  done
  [ -n "$port" ] || { echo "service in $tree did not start:"; cat "$log"; exit 1; }
  curl -sf "http://127.0.0.1:$port/api/v1/openapi.json" >"$out"
}

fetch_document "$work/base" "$work/base.json"
fetch_document "$root" "$work/new.json"
if cmp -s "$work/base.json" "$work/new.json"; then
  echo "OpenAPI document byte-identical to $base ($(git -C "$root" rev-parse --short "$base")): $(wc -c <"$work/new.json") bytes, sha256 $(sha256sum <"$work/new.json" | cut -c1-16)"
else
  echo "OpenAPI document differs from $base:"
  diff <(node -e 'console.log(JSON.stringify(JSON.parse(require("fs").readFileSync(0,"utf8")),null,1))' <"$work/base.json") \
    <(node -e 'console.log(JSON.stringify(JSON.parse(require("fs").readFileSync(0,"utf8")),null,1))' <"$work/new.json") | head -100
  exit 1
fi
