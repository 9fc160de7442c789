#!/usr/bin/env bash
# Builds the NMEA fuzz target with libFuzzer and AddressSanitizer, seeds its corpus from
# the fixtures (split into small pieces), and runs it.
#
#   Fuzz/run.sh [SECONDS]        default 600 (ten minutes)
#
# Work files go to Fuzz/.work (ignored by git); crashes land there as crash-*.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
work=Fuzz/.work
mkdir -p "$work/corpus"

swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name NMEAFuzz -package-name gpsbridge \
  Sources/NMEA/*.swift Sources/NMEA/Messages/*.swift Fuzz/FuzzNMEA.swift \
  -o "$work/fuzz-nmea"

# Seed corpus: each fixture in pieces of 40 lines, with a chunk-size byte in front.
for capture in Fixtures/*.nmea Fixtures/receivers/*.nmea; do
  name=$(basename "$capture" .nmea)
  split -l 40 -d -a 3 "$capture" "$work/corpus/$name-"
done
for piece in "$work"/corpus/*; do
  [ -f "$piece.seeded" ] && continue
  { printf '\x07'; cat "$piece"; } > "$piece.seeded" && rm "$piece"
done

"$work/fuzz-nmea" -max_total_time="$seconds" -max_len=4096 -artifact_prefix="$work/" \
  -print_final_stats=1 "$work/corpus"
