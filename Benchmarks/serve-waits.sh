#!/usr/bin/env bash
# What each thread of `gpsbridge serve` waits in, with every output on: a simulated receiver on
# a pty, a gpsd client, the status page, MQTT to a Mosquitto of its own, NTRIP to an address
# nobody listens on (the client reconnects with its backoff all along), a chrony socket, and
# systemd's watchdog. Each second it reads /proc/PID/task/*/syscall and prints the thread
# count and the system calls they wait in; at the end, how many samples saw a thread in
# poll, select, ppoll or pselect6 (the design card wants none) and the watchdog's pings.
#
#   Benchmarks/serve-waits.sh [SECONDS] [GPSBRIDGE]   (default 60 s, .build/release/gpsbridge)
#
# Needs mosquitto, socat and gpspipe (Debian: mosquitto socat gpsd-clients). A soak, not for CI.
set -uo pipefail
seconds=${1:-60}
gpsbridge=${2:-$(cd "$(dirname "$0")/.." && pwd)/.build/release/gpsbridge}
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
"$gpsbridge" simulate --pty "$work/gps" --live --duration $((seconds + 60)) >/dev/null 2>&1 & pids+=($!)
mosquitto -p 18883 >/dev/null 2>&1 & pids+=($!)
socat -u "UNIX-RECV:$work/notify.sock" - >"$work/notify" 2>&1 & pids+=($!)
for _ in $(seq 100); do [ -e "$work/gps" ] && break; sleep 0.1; done
NOTIFY_SOCKET="$work/notify.sock" WATCHDOG_USEC=4000000 "$gpsbridge" serve --device "$work/gps" \
  --listen 127.0.0.1:29480 --http 127.0.0.1:18089 --ntrip ntrip://127.0.0.1:12101/BASE \
  --mqtt mqtt://127.0.0.1:18883/gpsbridge --chrony "$work/chrony.sock" >"$work/serve.log" 2>&1 &
serve=$!
pids+=($serve)
sleep 3
timeout $((seconds + 5)) gpspipe -w 127.0.0.1:29480 >/dev/null 2>&1 & pids+=($!)
declare -A names=([0]=read [7]=poll [23]=select [35]=nanosleep [61]=wait4 [130]=rt_sigsuspend [202]=futex [230]=clock_nanosleep [232]=epoll_wait [270]=pselect6 [271]=ppoll [281]=epoll_pwait)
for i in $(seq "$seconds"); do
  waits=$(for task in /proc/$serve/task/*; do n=$(cut -d' ' -f1 "$task/syscall" 2>/dev/null); echo "${names[$n]:-$n}"; done | sort | uniq -c | tr -s ' \n' ' ')
  echo "t=$i threads=$(ls /proc/$serve/task | wc -l) $waits"
  sleep 1
done | tee "$work/samples"
echo "samples with a thread in poll, select, ppoll or pselect6: $(grep -cE ' (poll|select|ppoll|pselect6) ' "$work/samples") of $seconds"
echo "thread counts seen: $(awk '{ print $2 }' "$work/samples" | sort -u | tr '\n' ' ')"
echo "watchdog pings: $(tr '\0' '\n' <"$work/notify" | grep -o 'WATCHDOG=1' | wc -l)"
