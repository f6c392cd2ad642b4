#!/usr/bin/env bash
# Runs the external conformance checkers found in ../shared/tools (beside the repository) over
# every example: pdfa-check over each PDF/A variant (a failure fails this script), pdfua-check
# over each example as a report (Platen does not claim PDF/UA-1 yet). Prints a summary per
# checker. Without ../shared/tools it says so and exits 0: the project's own tests do not need it.
set -uo pipefail
cd "$(dirname "$0")/.."
tools=../shared/tools
if [ ! -d "$tools" ]; then
  echo "conformance: no ../shared/tools beside the repository; skipped"
  exit 0
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
node --import tsx scripts/render-examples.ts "$out" || exit 1
status=0

if [ -x "$tools/pdfa-check/pdfa-check" ]; then
  passed=0; failed=0
  for f in "$out"/*.pdf-a-*.pdf; do
    part=$(basename "$f" | sed -E 's/.*\.pdf-a-([123])b\.pdf/\1/')
    if result=$("$tools/pdfa-check/pdfa-check" "$f" --part "$part" --no-warnings 2>&1); then
      passed=$((passed + 1))
    else
      failed=$((failed + 1)); status=1
      echo "$result" | sed "s|^|  $(basename "$f"): |"
    fi
  done
  echo "pdfa-check over every example in every PDF/A variant: $passed passed, $failed failed"
fi

if [ -x "$tools/pdfua-check/pdfua-check" ]; then
  clean=0; faulty=0
  for f in "$out"/*.pdf; do
    case "$f" in *.pdf-a-*) continue ;; esac
    if "$tools/pdfua-check/pdfua-check" "$f" --no-warnings >/dev/null 2>&1; then clean=$((clean + 1)); else faulty=$((faulty + 1)); fi
  done
  echo "pdfua-check over every example (report only; PDF/UA-1 is not claimed yet): $clean meet PDF/UA-1, $faulty do not"
fi
exit $status
