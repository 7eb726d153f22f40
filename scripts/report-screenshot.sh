#!/usr/bin/env bash
# report-screenshot.sh — the first screen of a report as a reader opens it:
# DIR/report.html (from `kbench report ... -o DIR`) rendered by headless
# Chromium in a WIDTHxHEIGHT window, written to DIR/first-screen.png, so
# that a change to the report can be looked at.
#
#   scripts/report-screenshot.sh [DIR] [WIDTHxHEIGHT]
#                                   # default results/baselines/h200/report, 1400x900
#
# Chromium is looked for as $CHROMIUM, then chromium, chromium-browser,
# google-chrome, google-chrome-stable, headless_shell on PATH (Debian:
# apt-get install chromium). Where there is none this says so and exits 0:
# the screenshot is for a person to look at, nothing depends on it.
# Exit codes: 0 written, or no Chromium; 2 no DIR/report.html or a bad size;
# 4 Chromium ran and wrote no PNG.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-results/baselines/h200/report}
size=${2:-1400x900}
[ -f "$dir/report.html" ] ||
    { echo "report-screenshot: no $dir/report.html (make it with kbench report ... -o $dir)" >&2; exit 2; }
[[ $size =~ ^[0-9]+x[0-9]+$ ]] || { echo "report-screenshot: size '$size': expected WIDTHxHEIGHT" >&2; exit 2; }
browser=${CHROMIUM:-}
if [ -z "$browser" ]; then
    for name in chromium chromium-browser google-chrome google-chrome-stable headless_shell; do
        if command -v "$name" >/dev/null; then
            browser=$(command -v "$name")
            break
        fi
    done
fi
if [ -z "$browser" ]; then
    echo "report-screenshot: no Chromium on PATH (chromium, chromium-browser, google-chrome," \
        "headless_shell; or set CHROMIUM): no screenshot taken"
    exit 0
fi
out=$(cd "$dir" && pwd)/first-screen.png
page="file://$(cd "$dir" && pwd)/report.html"
rm -f "$out"
# A profile of its own, so that a browser the user has open is not joined;
# --no-sandbox, as root has none (containers, CI).
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$profile" --window-size="${size/x/,}" --screenshot="$out" "$page" \
    >"$profile/log" 2>&1 || true
if [ ! -s "$out" ]; then
    echo "report-screenshot: $browser wrote no $out; its output:" >&2
    cat "$profile/log" >&2
    exit 4
fi
echo "$out"
