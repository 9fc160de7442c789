#!/usr/bin/env bash
# The two ways of reading gpsd, on the same gpsfake run: gpsbridge's own JSON client
# (--gpsd) and gpsd's libgps (--gpsd --via libgps, a build with the libgps trait), side by
# side as two processes. Prints fixes, CPU seconds and CPU per fix for each, then restarts
# gpsd once and shows how long each took to give a location again.
#
#   swift build -c release --traits libgps --product gpsbridge
#   Benchmarks/gpsd-paths.sh [SECONDS] [BUILD_DIRECTORY]
#
# Needs gpsfake (Debian: gpsd gpsd-clients). Defaults: 30 s, .build/release.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
bin=${2:-.build/release}/gpsbridge
capture=Fixtures/quectel-nmea411-10hz.nmea
port=$((20000 + RANDOM % 20000))
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

if ! "$bin" --gpsd 127.0.0.1:1 --via libgps --once >/dev/null 2>"$work/check"; then
  if grep -q "needs a build with the libgps trait" "$work/check"; then
    echo "Error: $bin was built without the libgps trait: swift build -c release --traits libgps --product gpsbridge" >&2
    exit 1
  fi
fi

start_gpsd() { gpsfake -q -P "$port" -c 0.01 "$capture" >/dev/null 2>&1 & echo $! > "$work/gpsfake"; sleep 1.5; }
start_gpsd
"$bin" --gpsd "127.0.0.1:$port" --json 2>/dev/null | while read -r line; do echo "$(date +%s.%N) $line"; done > "$work/json" &
"$bin" --gpsd "127.0.0.1:$port" --via libgps --json 2>/dev/null | while read -r line; do echo "$(date +%s.%N) $line"; done > "$work/libgps" &
sleep "$seconds"
cpu() { # user+system seconds of the gpsbridge reading $1
  local pid
  pid=$(pgrep -f "gpsbridge --gpsd 127.0.0.1:$port $1" | head -1)
  awk -v ticks="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / ticks }' "/proc/$pid/stat"
}
json_cpu=$(cpu "--json"); libgps_cpu=$(cpu "--via libgps")
json_fixes=$(grep -c didUpdateLocations "$work/json"); libgps_fixes=$(grep -c didUpdateLocations "$work/libgps")
printf '%-18s %8s %10s %14s\n' path fixes "CPU s" "CPU µs/fix"
printf '%-18s %8d %10s %14.1f\n' "JSON client" "$json_fixes" "$json_cpu" "$(echo "$json_cpu * 1000000 / $json_fixes" | bc -l)"
printf '%-18s %8d %10s %14.1f\n' "libgps" "$libgps_fixes" "$libgps_cpu" "$(echo "$libgps_cpu * 1000000 / $libgps_fixes" | bc -l)"

# Latency, relative: the same fix's arrival through libgps minus through the JSON client.
arrivals() { grep didUpdateLocations "$1" | sed -E 's/^([0-9.]+) .*"timestamp":"([^"]+)".*/\2 \1/' | sort -u -k1,1; }
join <(arrivals "$work/json") <(arrivals "$work/libgps") | awk '{ printf "%.2f\n", ($3 - $2) * 1000 }' | sort -n > "$work/differences"
if [ -s "$work/differences" ]; then
  count=$(wc -l < "$work/differences")
  echo "same fix, libgps minus JSON client: median $(sed -n "$(( (count + 1) / 2 ))p" "$work/differences") ms over $count fixes (each line stamped by the reading shell as it arrives)"
fi

# gpsd restarted: from gpsd answering again to each path's next location.
pkill -f "gpsfake -q -P $port" || true
sleep 2
before_json=$(wc -l < "$work/json"); before_libgps=$(wc -l < "$work/libgps")
restarted=$(date +%s.%N)
start_gpsd
sleep 3
first_after() { tail -n +$(($2 + 1)) "$1" | grep -m1 didUpdateLocations | cut -d' ' -f1; }
for path in json libgps; do
  before=before_$path
  at=$(first_after "$work/$path" "${!before}")
  if [ -n "$at" ]; then
    printf 'gpsd restarted: %-7s next location %.0f ms after gpsfake was started again (its start-up included)\n' "$path" "$(echo "($at - $restarted) * 1000" | bc -l)"
  else
    echo "gpsd restarted: $path gave no location within 3 s"
  fi
done
