#!/usr/bin/env bash
# Renders every example with the CLI and writes a PNG of its first page to docs/previews/ (needs poppler's pdftoppm).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
for dir in examples/*/; do
  name=$(basename "$dir")
  npx tsx src/cli.ts render "$dir/template.json" "$dir/data.json" -o "$out/$name.pdf"
  pdftoppm -png -r 72 -f 1 -l 1 -singlefile "$out/$name.pdf" "docs/previews/$name"
done
rm -rf "$out"
