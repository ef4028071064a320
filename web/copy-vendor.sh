#!/bin/sh
# Copies the chart library installed by `npm ci` into the embedded folder
# (static/assets/vendor/, git-ignored). Run from web/ after npm ci; the Go
# build embeds whatever is there, and the page degrades to tables without it.
set -eu
cd "$(dirname "$0")"
src=node_modules/uplot/dist
if [ ! -f "$src/uPlot.iife.min.js" ]; then
	echo "copy-vendor: $src/uPlot.iife.min.js missing: run npm ci in web/ first" >&2
	exit 1
fi
mkdir -p static/assets/vendor
cp "$src/uPlot.iife.min.js" "$src/uPlot.min.css" static/assets/vendor/
cp node_modules/uplot/LICENSE static/assets/vendor/uPlot.LICENSE.txt
echo "copy-vendor: uPlot $(node -p 'require("./node_modules/uplot/package.json").version' 2>/dev/null || echo '?') -> static/assets/vendor/"
