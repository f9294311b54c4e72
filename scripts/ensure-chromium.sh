#!/usr/bin/env bash
# The browser tests drive Debian's Chromium through playwright-core (no
# browser is ever downloaded by npm). Install it when it is missing.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
  exit 0
fi
echo "pbdkit: Chromium is missing; installing Debian's chromium package for the browser tests…" >&2
if [ "$(id -u)" = "0" ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "pbdkit: cannot install Chromium without root; run: apt-get install -y chromium" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium >/dev/null
command -v chromium >/dev/null 2>&1 || { echo "pbdkit: chromium did not install" >&2; exit 1; }
