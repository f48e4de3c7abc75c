# Two commands on a fresh machine: `make run` and `make test` (see README.md).
SHELL := /bin/bash
NODE_MODULES_STAMP := node_modules/.install-stamp
SHARED_DATA := $(abspath ../shared/data)
# `make run` serves the lists in ../shared/data when it is there (air-gapped mode); otherwise the
# service fetches every list from its official URL.
RUN_SOURCE_DIR ?= $(if $(wildcard $(SHARED_DATA)/README.md),$(SHARED_DATA),)

.PHONY: install build run test test-busy test-fast typecheck bench cli pg-start pg-stop clean

install: $(NODE_MODULES_STAMP)

$(NODE_MODULES_STAMP): package.json package-lock.json
	@command -v node >/dev/null || { echo "Node.js 20 is required (https://nodejs.org)"; exit 1; }
	@node -e 'process.exit(process.versions.node.split(".")[0] === "20" ? 0 : 1)' || { echo "Node.js 20 is required (uWebSockets.js binary); found $$(node --version)"; exit 1; }
	npm ci --no-audit --no-fund
	@touch $@

build: install
	node scripts/build.mjs

# The service runs compiled (dist/, see scripts/build.mjs), with the V8 flags of src/node-flags.json:
# a 64 MiB young generation lets a 10,000-item batch die young instead of being promoted
# (+15-20% batch throughput, bench/RESULTS.md).
SERVICE_NODE_FLAGS = $(shell node -p "require('./src/node-flags.json').join(' ')")
run: build
	SOURCE_DIR="$${SOURCE_DIR:-$(RUN_SOURCE_DIR)}" node $(SERVICE_NODE_FLAGS) dist/src/main.js

typecheck: install
	npx tsc --noEmit -p tsconfig.json

# The control-plane suite also runs against a real PostgreSQL server (Debian package, loopback port).
test: install typecheck
	@TEST_DATABASE_URL="$$(bash scripts/pg-test-server.sh start)" || { echo "could not start PostgreSQL for the tests"; exit 1; }; \
	export TEST_DATABASE_URL; \
	node scripts/run-tests.mjs $(TESTS); status=$$?; \
	bash scripts/pg-test-server.sh stop >/dev/null 2>&1 || true; \
	exit $$status

# The suite while stress-ng keeps every core busy (CI machines are shared): nothing may depend on
# wall-clock speed.
test-busy: install
	bash scripts/test-busy.sh

test-fast: install
	node scripts/run-tests.mjs $(TESTS)

bench: build
	@command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
	node dist/bench/run.js $(ARGS)

cli: install
	npx tsx src/cli.ts $(ARGS)

clean:
	rm -rf node_modules data .tmp dist
