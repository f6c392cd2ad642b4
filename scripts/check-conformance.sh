#!/usr/bin/env bash
# Runs the external conformance checkers found in ../shared/tools (beside the repository) over
# every example: pdfa-check over each PDF/A variant (PDF/UA ones included), pdfua-check over each
# example rendered with pdf_ua (alone, with PDF/A-2b and -3b); a failure of either fails this
# script. Prints a summary per checker. Without ../shared/tools it says so and exits 0: the
# project's own tests do not need it.
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
  passed=0; failed=0
  for f in "$out"/*.ua.pdf "$out"/*.ua.pdf-a-*.pdf; do
    if result=$("$tools/pdfua-check/pdfua-check" "$f" --no-warnings 2>&1); then
      passed=$((passed + 1))
    else
      failed=$((failed + 1)); status=1
      echo "$result" | sed "s|^|  $(basename "$f"): |"
    fi
  done
  echo "pdfua-check over every example with pdf_ua (alone, with PDF/A-2b and -3b): $passed passed, $failed failed"
fi

exit $status
