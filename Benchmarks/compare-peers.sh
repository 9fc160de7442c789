#!/usr/bin/env bash
# Decodes one generated stream with the NMEA parsers installed here and prints one line
# per peer: sentences per second in this run. gpsbridge's own figure comes from
# nmea-benchmark (full decode, in process). Peers: gpsd's gpsdecode (Debian gpsd-clients),
# pynmea2 and pynmeagps (PyPI), go-nmea (Debian golang-github-adrianmo-go-nmea-dev).
#
#   Benchmarks/compare-peers.sh [EPOCHS]      default 20000 (220,000 sentences)
set -euo pipefail
cd "$(dirname "$0")/.."
epochs=${1:-20000}
file=$(mktemp --suffix=.nmea)
trap 'rm -f "$file"' EXIT
swift build -c release --product nmea-benchmark >/dev/null
.build/release/nmea-benchmark --epochs "$epochs" --write "$file" | tail -3
sentences=$((epochs * 11))

rate() { # name, seconds
  python3 -c "import sys; print(f'{sys.argv[1]:<28} {int(sys.argv[3])/float(sys.argv[2])/1e6:8.3f} M sentences/s  ({float(sys.argv[2]):.2f} s)')" "$1" "$2" "$sentences"
}
seconds() { python3 -c 'import sys,time,subprocess; t=time.perf_counter(); subprocess.run(sys.argv[1], shell=True, check=True); print(time.perf_counter()-t)' "$1"; }

if command -v gpsdecode >/dev/null; then rate "gpsdecode (C, gpsd)" "$(seconds "gpsdecode < $file > /dev/null")"; else echo "gpsdecode: not installed"; fi
if python3 -c 'import pynmea2' 2>/dev/null; then
  rate "pynmea2 (Python)" "$(seconds "python3 -c 'import pynmea2,sys
for line in open(sys.argv[1], errors=\"replace\"):
    pynmea2.parse(line.strip(), check=True)' $file")"
else echo "pynmea2: not installed (pip install pynmea2)"; fi
if python3 -c 'import pynmeagps' 2>/dev/null; then
  rate "pynmeagps (Python)" "$(seconds "python3 -c 'import pynmeagps,sys
for line in open(sys.argv[1]):
    pynmeagps.NMEAReader.parse(line.strip())' $file")"
else echo "pynmeagps: not installed (pip install pynmeagps)"; fi
if [ -d /usr/share/gocode/src/github.com/adrianmo/go-nmea ] && command -v go >/dev/null; then
  work=$(mktemp -d)
  cat > "$work/main.go" <<'GO'
package main
import ("bufio"; "os"; nmea "github.com/adrianmo/go-nmea")
func main() { f, _ := os.Open(os.Args[1]); s := bufio.NewScanner(f); for s.Scan() { nmea.Parse(s.Text()) } }
GO
  (cd "$work" && GOPATH=/usr/share/gocode GO111MODULE=off go build -o peer main.go) && rate "go-nmea (Go)" "$(seconds "$work/peer $file")"
  rm -rf "$work"
else echo "go-nmea: not installed (apt-get install golang-go golang-github-adrianmo-go-nmea-dev)"; fi
