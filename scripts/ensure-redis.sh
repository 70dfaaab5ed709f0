#!/usr/bin/env bash
# The tests start their own redis-server processes; make sure the binary is there.
set -euo pipefail
if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "redis-server not found: installing Debian's redis-server" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  exit 0
fi
echo "The tests need redis-server and redis-cli on PATH (Debian/Ubuntu: sudo apt-get install -y redis-server; macOS: brew install redis)." >&2
exit 1
