#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer and AddressSanitizer, seeds their corpora from the
# fixtures, and runs each in turn:
#   nmea: the framer, every sentence decoder and epoch assembly (NMEA captures as seeds);
#   gpsd: gpsd's line splitter, report decoding, range checks and fix assembly (gpsd logs).
#
#   Fuzz/run.sh [SECONDS] [nmea|gpsd]...      default 600 s (ten minutes) for each target
#
# Work files go to Fuzz/.work (ignored by git); crashes land there as <target>-crash-*.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(nmea gpsd)
work=Fuzz/.work
mkdir -p "$work"

build_nmea() {
  swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name NMEAFuzz -package-name gpsbridge \
    Sources/NMEA/*.swift Sources/NMEA/Messages/*.swift Fuzz/FuzzNMEA.swift -o "$work/fuzz-nmea"
  mkdir -p "$work/corpus-nmea"
  # Each capture in pieces of 40 lines, with a chunk-size byte in front.
  for capture in Fixtures/*.nmea Fixtures/receivers/*.nmea; do
    split -l 40 -d -a 3 "$capture" "$work/corpus-nmea/$(basename "$capture" .nmea)-"
  done
}

build_gpsd() {
  # One module: the GPSD sources (their `import NMEA` dropped) with NMEA's.
  rm -rf "$work/gpsd-sources" && mkdir -p "$work/gpsd-sources"
  for source in Sources/GPSD/*.swift; do
    grep -v '^import NMEA$' "$source" >"$work/gpsd-sources/$(basename "$source")"
  done
  swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name GPSDFuzz -package-name gpsbridge \
    Sources/NMEA/*.swift Sources/NMEA/Messages/*.swift "$work"/gpsd-sources/*.swift Fuzz/FuzzGPSD.swift -o "$work/fuzz-gpsd"
  mkdir -p "$work/corpus-gpsd"
  for log in Fixtures/gpsd/*.jsonl; do
    split -l 20 -d -a 3 "$log" "$work/corpus-gpsd/$(basename "$log" .jsonl)-"
  done
}

for target in "${targets[@]}"; do
  "build_$target"
  for piece in "$work/corpus-$target"/*; do
    case "$piece" in *.seeded) continue ;; esac
    { printf '\x07'; cat "$piece"; } >"$piece.seeded" && rm "$piece"
  done
  echo "== $target: $seconds s"
  "$work/fuzz-$target" -max_total_time="$seconds" -max_len=16384 -artifact_prefix="$work/$target-" \
    -print_final_stats=1 "$work/corpus-$target"
done
