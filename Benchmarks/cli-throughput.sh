#!/usr/bin/env bash
# The command line's replay against gpsd's decoder on the same captures, in the same run:
# `gpsbridge --replay FILE --speed max --json > /dev/null` vs `gpsdecode < FILE > /dev/null`
# on simulated 20,000- and 100,000-epoch captures (u-blox NMEA 4.10, 10 sentences an epoch),
# the runs interleaved (gpsdecode, gpsbridge, gpsdecode, ...) so a machine that speeds up or
# slows down affects both alike. Then the fixed cost of a one-epoch replay, and, through an
# LD_PRELOAD allocation counter, allocations per epoch, peak resident memory and private
# dirty memory, for the default release build and the one that Scripts/install builds
# (Swift runtime linked in, packed relocations).
#
# Needs gpsdecode (Debian: gpsd-clients) and a C compiler. Takes a few minutes (it builds).
#
#   Benchmarks/cli-throughput.sh [ROUNDS]      default 5
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v gpsdecode >/dev/null || { echo "cli-throughput: needs gpsdecode (Debian: apt install gpsd-clients)" >&2; exit 1; }

echo "Building (release, and release with the Swift runtime linked in as Scripts/install does)..." >&2
swift build -c release --product gpsbridge >/dev/null
static=$(Scripts/install --build-only)
dynamic=.build/release/gpsbridge
# A just-written binary's pages stay dirty in the page cache until written back, and would
# count as private dirty memory of the process that maps them.
sync
cc -O2 -shared -fPIC -I Benchmarks -I Benchmarks/MallocCounter/include -o "$work/malloc-count.so" Benchmarks/malloc-count-preload.c

for epochs in 1 20000 100000; do
  "$dynamic" simulate --duration "$epochs" --output "$work/$epochs.nmea"
done

# Wall seconds of one run of "$@" (output thrown away).
seconds() {
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null
  end=$(date +%s%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f\n", (b - a) / 1e9 }'
}
# min median of the numbers on stdin
stats() { sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f %.3f\n", v[1], m }'; }

decode() { gpsdecode <"$1"; }
replay() { "$dynamic" --replay "$1" --speed max --json; }

echo
echo "Throughput: wall seconds over $rounds interleaved rounds (min / median), same run"
printf "  %-8s %-22s %-22s %s\n" epochs "gpsdecode" "gpsbridge" "gpsdecode/gpsbridge (median of per-round ratios)"
for epochs in 20000 100000; do
  : >"$work/gpsdecode" && : >"$work/gpsbridge" && : >"$work/ratio"
  decode "$work/$epochs.nmea" >/dev/null && replay "$work/$epochs.nmea" >/dev/null # warm-up
  for _ in $(seq "$rounds"); do
    a=$(seconds decode "$work/$epochs.nmea")
    b=$(seconds replay "$work/$epochs.nmea")
    echo "$a" >>"$work/gpsdecode" && echo "$b" >>"$work/gpsbridge"
    awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f\n", a / b }' >>"$work/ratio"
  done
  read -r amin amed < <(stats <"$work/gpsdecode")
  read -r bmin bmed < <(stats <"$work/gpsbridge")
  read -r _ rmed < <(stats <"$work/ratio")
  printf "  %-8s %-22s %-22s %.1f×\n" "$epochs" "$amin / $amed s" "$bmin / $bmed s" "$rmed"
done

echo
echo "Fixed cost: a one-epoch replay vs gpsbridge check of the same file ($rounds runs, min / median)"
for _ in $(seq "$rounds"); do seconds replay "$work/1.nmea"; done | stats | awk '{ printf "  replay  %s / %s s\n", $1, $2 }'
for _ in $(seq "$rounds"); do seconds "$dynamic" check "$work/1.nmea"; done | stats | awk '{ printf "  check   %s / %s s\n", $1, $2 }'

echo
echo "Memory and allocations (LD_PRELOAD counter; per epoch = difference between the two captures / 80,000)"
printf "  %-38s %12s %14s %16s %18s\n" build "allocs/epoch" "peak RSS 20k" "peak RSS 100k" "private dirty 100k"
for build in "swift build -c release:$dynamic" "Scripts/install:$static"; do
  name=${build%%:*} program=${build#*:}
  : >"$work/counts"
  for epochs in 20000 100000; do
    MALLOC_COUNT_OUTPUT="$work/counts" LD_PRELOAD="$work/malloc-count.so" \
      "$program" --replay "$work/$epochs.nmea" --speed max --json >/dev/null
  done
  # Each line: allocations, peak RSS KiB, private dirty KiB at exit.
  awk -v name="$name" 'NR == 1 { a = $1; r = $2 } NR == 2 { printf "  %-38s %12.2f %11.1f MB %13.1f MB %15.2f MB\n", name, ($1 - a) / 80000, r / 1024, $2 / 1024, $3 / 1024 }' "$work/counts"
done
echo
echo "gpsdecode's peak RSS on 100k, for scale:"
MALLOC_COUNT_OUTPUT="$work/gpsdecode-counts" LD_PRELOAD="$work/malloc-count.so" gpsdecode <"$work/100000.nmea" >/dev/null
awk '{ printf "  %.1f MB\n", $2 / 1024 }' "$work/gpsdecode-counts"
