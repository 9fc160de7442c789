#!/usr/bin/env bash
# gpsbridge's throughput and memory against gpsd's gpsdecode on the same large capture,
# measured in the same run. Needs hyperfine and gpsdecode (Debian: hyperfine, gpsd-clients).
#
#   Benchmarks/cli-throughput.sh [EPOCHS]     default 100000 (1.1 million sentences, 69 MB)
set -euo pipefail
cd "$(dirname "$0")/.."
epochs=${1:-100000}
file=$(mktemp --suffix=.nmea)
half=$(mktemp --suffix=.nmea)
trap 'rm -f "$file" "$half"' EXIT

swift build -c release --product gpsbridge --product nmea-benchmark >/dev/null
.build/release/nmea-benchmark --epochs "$epochs" --write "$file" | head -1
head -c $(( $(stat -c %s "$file") / 2 )) "$file" > "$half"

hyperfine --warmup 1 --runs 5 \
  "gpsdecode < $file > /dev/null" \
  ".build/release/gpsbridge --replay $file --speed max --json > /dev/null"

echo
echo "Peak resident memory (constant in the file's size means it streams):"
/usr/bin/time -f "  gpsbridge --help (process floor):  %M KB" .build/release/gpsbridge --help > /dev/null
/usr/bin/time -f "  replay of half the file:          %M KB" .build/release/gpsbridge --replay "$half" --speed max --json > /dev/null
/usr/bin/time -f "  replay of the whole file:         %M KB" .build/release/gpsbridge --replay "$file" --speed max --json > /dev/null
/usr/bin/time -f "  gpsdecode of the whole file:      %M KB" gpsdecode < "$file" > /dev/null
