#!/usr/bin/env bash
# The admin page's browser test drives Debian's Chromium through puppeteer-core (nothing is
# downloaded at test time); make sure the binary is there.
set -euo pipefail
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "$CHROMIUM not found: installing Debian's chromium" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "The admin page's browser test needs Chromium at $CHROMIUM (Debian/Ubuntu: sudo apt-get install -y chromium), or CHROMIUM_PATH set to one." >&2
exit 1
