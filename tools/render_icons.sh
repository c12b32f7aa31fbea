#!/usr/bin/env bash
# Renders the maskable app icons (PNG, 192 and 512 px) from icons/icon-maskable.svg with the
# same headless Chromium the browser tests use. Run it after changing the SVG, and commit the
# PNGs. Maskable: the background fills the square (the launcher cuts its own shape) and the
# face stays inside the central safe circle (40% of the size as radius).
set -euo pipefail
icons="$(cd "$(dirname "$0")/../kmood_lib/web/static/icons" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$icons/icon-maskable.svg" "$work/"
for size in 192 512; do
  printf '<!doctype html><body style="margin:0;overflow:hidden"><img src="icon-maskable.svg" width="%s" height="%s" style="display:block">' \
    "$size" "$size" > "$work/page.html"
  timeout 60 "${CHROMIUM:-/usr/bin/chromium}" --headless=new --no-sandbox --disable-gpu \
    --disable-dev-shm-usage --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$work/profile-$size" \
    --hide-scrollbars --force-device-scale-factor=1 --window-size="$size,$size" \
    --screenshot="$icons/icon-maskable-$size.png" "file://$work/page.html"
done
