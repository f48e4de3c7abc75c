# Two commands on a fresh machine: `make run` and `make test` (see README.md).
SHELL := /bin/bash
NODE_MODULES_STAMP := node_modules/.install-stamp
SHARED_DATA := $(abspath ../shared/data)
# `make run` serves the lists in ../shared/data when it is there (air-gapped mode); otherwise the
# service fetches every list from its official URL.
RUN_SOURCE_DIR ?= $(if $(wildcard $(SHARED_DATA)/README.md),$(SHARED_DATA),)

.PHONY: install build dashboard chromium run test test-busy test-fast typecheck lint format format-check bench cli pg-start pg-stop clean

install: $(NODE_MODULES_STAMP)

$(NODE_MODULES_STAMP): package.json package-lock.json
	@command -v node >/dev/null || { echo "Node.js 20 is required (https://nodejs.org)"; exit 1; }
	@node -e 'process.exit(process.versions.node.split(".")[0] === "20" ? 0 : 1)' || { echo "Node.js 20 is required (uWebSockets.js binary); found $$(node --version)"; exit 1; }
	npm ci --no-audit --no-fund
	@touch $@

# `make build` (and so `make run`) compiles only when a source changed since the last build: the
# stamp depends on every file the build reads, and tsc itself builds incrementally (dist/.tsbuildinfo).
# The dashboard (src/dashboard, built apart by scripts/build-dashboard.mjs) is not among them.
BUILD_INPUTS := $(shell find src engine loaders harness bench -path src/dashboard -prune -o -type f \( -name '*.ts' -o -name '*.json' -o -name '*.sql' \) -print) tsconfig.json tsconfig.build.json scripts/build.mjs
BUILD_STAMP := dist/.build-stamp

build: $(BUILD_STAMP) dashboard

$(BUILD_STAMP): $(NODE_MODULES_STAMP) $(BUILD_INPUTS)
	node scripts/build.mjs
	@touch $@

# The dashboard (src/dashboard → dist/dashboard); skipped when its sources did not change.
dashboard: install
	node scripts/build-dashboard.mjs

# The browser tests drive Debian's Chromium, installed here when missing (CI runs as root).
chromium:
	@test -x /usr/bin/chromium || { echo "installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  { echo "could not install chromium (needs root: apt-get install chromium)"; exit 1; }

# The service runs compiled (dist/, see scripts/build.mjs), with the V8 flags of src/node-flags.json:
# a 64 MiB young generation lets a 10,000-item batch die young instead of being promoted
# (+15-20% batch throughput, bench/RESULTS.md).
SERVICE_NODE_FLAGS = $(shell node -p "require('./src/node-flags.json').join(' ')")
# The environment `make run` and `make cli` share, so the CLI works on the data the service uses:
# the same defaults (DATA_DIR ./data, the lists of ../shared/data when present), and the same
# CONFIG_FILE when one is given to both.
SERVICE_ENV = SOURCE_DIR="$${SOURCE_DIR:-$(RUN_SOURCE_DIR)}"

run: build
	$(SERVICE_ENV) node $(SERVICE_NODE_FLAGS) dist/src/main.js

typecheck: install
	npx tsc --noEmit -p tsconfig.json
	npx tsc --noEmit -p src/dashboard/tsconfig.json

# Part of `make test`: Prettier's check (.prettierrc.json; `make format` rewrites), ESLint
# (typescript-eslint, with the type-aware rules for unhandled promises and `any`), the layer rules (.dependency-cruiser.cjs: no upward import, no loop between files or
# folders) and knip (no unused file, export or dependency). The commands are package.json's scripts.
lint: install
	npm run -s lint

# Prettier (.prettierrc.json); `make lint` (so `make test`) checks it.
format: install
	npm run -s format

format-check: install
	npm run -s format-check

# The control-plane suite also runs against a real PostgreSQL server (Debian package, loopback port);
# the dashboard's tests run in Chromium against the built dashboard.
test: install typecheck lint dashboard chromium
	@TEST_DATABASE_URL="$$(bash scripts/pg-test-server.sh start)" || { echo "could not start PostgreSQL for the tests"; exit 1; }; \
	export TEST_DATABASE_URL; \
	node scripts/run-tests.mjs $(TESTS); status=$$?; \
	bash scripts/pg-test-server.sh stop >/dev/null 2>&1 || true; \
	exit $$status

# The suite while stress-ng keeps every core busy (CI machines are shared): nothing may depend on
# wall-clock speed.
test-busy: install
	bash scripts/test-busy.sh

test-fast: install dashboard chromium
	node scripts/run-tests.mjs $(TESTS)

bench: build
	@command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
	node dist/bench/run.js $(ARGS)

cli: install
	@$(SERVICE_ENV) npx tsx src/cli.ts $(ARGS)

clean:
	rm -rf node_modules data .tmp dist
