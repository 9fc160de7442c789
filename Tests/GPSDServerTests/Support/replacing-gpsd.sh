#!/bin/sh
# The "Replacing gpsd" section (the "Serving gpsd clients" article), run as written on a real systemd, in a sandbox: new
# mount and network namespaces (unshare -m -n), in which /etc and /usr/local are overlays
# (useradd and the unit files change nothing outside) and /run is fresh, and a cgroup of its
# own (systemd moves the processes of the cgroup it starts in into an init.scope: started in
# the machine's root cgroup it would take every process along). All of it, and every process
# in it, is gone at the end. systemd runs as a
# user manager there (a system manager needs PID 1), so each command is taken from the README
# and translated only as that requires: `sudo` dropped (this runs as root), `systemctl` with
# --user, /etc/systemd/system/ read as /etc/systemd/user/. The receivers are simulated on
# pseudo-terminals given to dialout, as udev gives serial ports; the README's device paths
# are replaced by theirs. Debian's own gpsd.socket and gpsd.service are the package's files.
#
#   timeout -s INT 200 unshare -m -n --propagation private sh replacing-gpsd.sh GPSBRIDGE ARTICLE SCRATCH
#
# Prints what it checks; exits 1 at the first thing that is not as the README says.
set -eu
gpsbridge=$1 readme=$2 scratch=$3
fail() {
  echo "FAILED: $*"
  timeout 5 systemctl --user status --no-pager gpsbridge.socket gpsbridge.service 2>&1 || true
  exit 1
}
say() { echo "== $*"; }

# The sandbox's cgroup, in each hierarchy (cgroup v1's several, or v2's one), with this script
# moved into it; at the end every process in it is killed and it is removed.
cgroup=gpsbridge-sandbox-$$
if [ -f /sys/fs/cgroup/cgroup.procs ]; then hierarchies=/sys/fs/cgroup/; else hierarchies=$(ls -d /sys/fs/cgroup/*/); fi
origins=
for hierarchy in $hierarchies; do
  # (v1's combined controllers appear under several names, links to one: it is taken once.)
  [ -f "${hierarchy}cgroup.procs" ] && [ ! -L "${hierarchy%/}" ] || continue
  # Where this script is in that hierarchy: the /proc/self/cgroup line whose controllers the
  # hierarchy's name holds (v1), or the one line of v2.
  name=$(basename "$hierarchy")
  origin=$(awk -F: -v n="$name" -v v2="$([ "$hierarchy" = /sys/fs/cgroup/ ] && echo 1)" '
    v2 && $1 == 0 { print $3; exit }
    !v2 && ($2 == n || $2 == "name=" n || (n == "unified" && $1 == 0) || index("," $2 ",", "," n ",")) { print $3; exit }' /proc/self/cgroup)
  [ -n "$origin" ] || continue
  home="${hierarchy%/}${origin%/}/$cgroup"
  mkdir "$home" || fail "cannot make the cgroup $home"
  if [ -f "$home/cpuset.cpus" ]; then
    cat "$(dirname "$home")/cpuset.cpus" >"$home/cpuset.cpus"
    cat "$(dirname "$home")/cpuset.mems" >"$home/cpuset.mems"
  fi
  echo $$ >"$home/cgroup.procs" || fail "cannot move into the cgroup $home"
  origins="$origins ${hierarchy%/}${origin%/}"
done
# Killed, each process is waited for until it has exited (a pidfd turns readable then); a
# process forked meanwhile is found at the next turn.
gone() {
  python3 -c 'import os, select, sys
for pid in sys.argv[1:]:
    try:
        select.select([os.pidfd_open(int(pid))], [], [], 5)
    except ProcessLookupError:
        pass' "$@"
}
cleanup() {
  for parent in $origins; do echo $$ >"$parent/cgroup.procs" 2>/dev/null || true; done
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    left=$(for parent in $origins; do find "$parent/$cgroup" -name cgroup.procs -exec cat {} + 2>/dev/null; done | sort -u)
    [ -z "$left" ] && break
    kill -9 $left 2>/dev/null || true
    gone $left || true
  done
  for parent in $origins; do find "$parent/$cgroup" -depth -type d -exec rmdir {} + 2>/dev/null || true; done
}
trap cleanup EXIT
# Stopped from outside (timeout -s INT): the cleanup above still runs.
trap 'echo "FAILED: interrupted"; exit 1' INT

ip link set lo up
mount -t tmpfs tmpfs /run
mkdir -p /run/systemd/system /run/manager "$scratch/upper-etc" "$scratch/work-etc" "$scratch/upper-local" "$scratch/work-local"
# The user manager's notify socket is under its runtime directory: a service that runs as
# another user (User=gpsbridge) must reach it there as it reaches PID 1's /run/systemd/notify
# (mode 0777), so the directory is opened to it (the socket once made, below), and is not
# under /run/user, which the unit's ProtectHome= hides.
chmod 711 /run/manager
# What systemd as PID 1 makes at boot, and ProtectHome= mounts over /home, /root and /run/user.
mkdir -p /run/systemd/inaccessible && mkdir -m 0 /run/systemd/inaccessible/dir
install -m 0 /dev/null /run/systemd/inaccessible/reg && mkfifo -m 0 /run/systemd/inaccessible/fifo
mknod -m 0 /run/systemd/inaccessible/chr c 0 0 && mknod -m 0 /run/systemd/inaccessible/blk b 0 0
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$scratch/upper-etc,workdir=$scratch/work-etc" /etc
mount -t overlay overlay -o "lowerdir=/usr/local,upperdir=$scratch/upper-local,workdir=$scratch/work-local" /usr/local
mkdir -p /etc/systemd/user
export XDG_RUNTIME_DIR=/run/manager HOME="$scratch/home"
mkdir -p "$HOME"
# Started as user@.service starts it: it says READY=1 on $NOTIFY_SOCKET once it is up, which
# Python (bound before systemd starts) waits for.
timeout 30 python3 -c 'import os, socket, sys
path, log = sys.argv[1], sys.argv[2]
notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
notify.bind(path)
if os.fork() == 0:
    output = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.environ["NOTIFY_SOCKET"] = path
    os.execv("/lib/systemd/systemd", ["systemd", "--user"])
while b"READY=1" not in notify.recv(4096).split(b"\n"):
    pass' /run/manager-ready "$scratch/systemd.log" || true
[ -S /run/manager/systemd/notify ] || fail "systemd did not start: $(cat "$scratch/systemd.log")"
chmod 777 /run/manager/systemd/notify

# The README's commands: its code blocks (not sh ones) in the section, translated.
section=$(awk '/^##+ Replacing gpsd$/ { on = 1; next } /^##/ { on = 0 } on' "$readme")
commands=$(printf '%s\n' "$section" | awk '/^```/ { if (inside) inside = 0; else inside = ($0 == "```") ? 1 : 2; next } inside == 1')
translate() { sed -e 's/^sudo //' -e 's/| sudo /| /' -e 's/|| sudo /|| /' -e 's/systemctl /systemctl --user /' -e 's#/etc/systemd/system/#/etc/systemd/user/#'; }

say "Debian's gpsd.socket holds the port, as the gpsd package leaves it"
cp /lib/systemd/system/gpsd.socket /lib/systemd/system/gpsd.service /etc/systemd/user/
timeout 30 systemctl --user daemon-reload
timeout 30 systemctl --user enable --now gpsd.socket 2>/dev/null
refusal=$("$gpsbridge" serve --replay /dev/null 2>&1 && echo "(exit 0)" || true)
echo "$refusal"
printf '%s' "$refusal" | grep -q "gpsd.socket" || fail "serve does not name gpsd.socket when the port is taken"

say "The README's way to stop it"
printf '%s\n' "$commands" | grep 'gpsd.socket gpsd.service' | translate | while read -r line; do
  echo "\$ $line"
  timeout 30 sh -c "$line" 2>&1
done
timeout 30 systemctl --user is-active gpsd.socket >/dev/null && fail "gpsd.socket is still active"
timeout 30 systemctl --user is-enabled gpsd.socket >/dev/null 2>&1 && fail "gpsd.socket is still enabled: it would come back at boot"

say "Two simulated receivers, their ports given to dialout as udev does"
# Under /run: the unit's PrivateTmp= hides /tmp and /var/tmp from the service.
dev=/run/receivers
mkdir -p "$dev"
# Each says where it is once its link is made, on a pipe (read on by cat from then on: a
# background job's standard input would be /dev/null, hence descriptor 3).
mkfifo "$scratch/said-first" "$scratch/said-second"
"$gpsbridge" simulate --pty "$dev/first" --live >/dev/null 2>"$scratch/said-first" &
"$gpsbridge" simulate --pty "$dev/second" --live --profile sirf >/dev/null 2>"$scratch/said-second" &
for link in first second; do
  { grep -q -m1 -F "is at $dev/$link " <&3 && { cat <&3 >/dev/null & }; } 3<"$scratch/said-$link" || true
  [ -e "$dev/$link" ] || fail "the simulated receiver $link did not start"
  chgrp dialout "$(readlink -f "$dev/$link")" && chmod 660 "$(readlink -f "$dev/$link")"
done

say "After Scripts/install /usr/local (the built program in its place), the README's unit commands"
install -D -m 0755 "$gpsbridge" /usr/local/bin/gpsbridge
cd "$(dirname "$0")/../../.."  # the repository, where the commands find Scripts/systemd
printf '%s\n' "$commands" | grep -v 'gpsd.socket gpsd.service' | translate \
  | sed -e "s#/dev/serial/by-id/[^\"]*#$dev/first#" | while read -r line; do
  echo "\$ $line"
  timeout 30 sh -c "$line" 2>&1 || fail "$line"
done
id gpsbridge || fail "no user gpsbridge"
id -nG gpsbridge | grep -qw dialout || fail "gpsbridge is not in dialout"

say "A client's connection starts the service (socket activation) and reads the receiver"
timeout 30 gpspipe -w -n 12 127.0.0.1:2947 >"$scratch/one.json" 2>&1 || true
grep -q "\"class\":\"TPV\",\"device\":\"$dev/first\"" "$scratch/one.json" || fail "no TPV from the receiver: $(cat "$scratch/one.json")"
[ "$(timeout 30 systemctl --user is-active gpsbridge.service)" = active ] || fail "gpsbridge.service is not active (Type=notify: READY=1?)"
pid=$(timeout 30 systemctl --user show -p MainPID --value gpsbridge.service)
[ "$(ps -o user= -p "$pid")" = gpsbridge ] || fail "the service runs as $(ps -o user= -p "$pid"), not gpsbridge"
echo "served as user gpsbridge (pid $pid), READY=1 seen by systemd"

say "Several receivers: the README's options line"
options=$(printf '%s\n' "$section" | grep -o 'GPSBRIDGE_OPTIONS="--device [^"]*--device [^"]*"' | head -1)
[ -n "$options" ] || fail "the README has no GPSBRIDGE_OPTIONS line with two --device"
echo "$options" | sed -e "s#/dev/ttyACM0#$dev/first#" -e "s#/dev/ttyUSB0#$dev/second#" >/etc/default/gpsbridge
cat /etc/default/gpsbridge
timeout 30 systemctl --user restart gpsbridge.service
for _ in 1 2 3 4 5; do
  timeout 20 gpspipe -w -n 24 127.0.0.1:2947 >"$scratch/two.json" 2>&1 || true
  grep -q "\"device\":\"$dev/second\"" "$scratch/two.json" && grep -q "\"device\":\"$dev/first\"" "$scratch/two.json" && break
done
grep -q "\"class\":\"TPV\",\"device\":\"$dev/second\"" "$scratch/two.json" || fail "no TPV from the second receiver: $(cat "$scratch/two.json")"
grep -q "\"class\":\"TPV\",\"device\":\"$dev/first\"" "$scratch/two.json" || fail "no TPV from the first receiver: $(cat "$scratch/two.json")"

say "Regions: their states survive systemctl restart (the unit's StateDirectory=)"
# A circle of 5 km round the drive's start: inside from the first fix to the last, so one
# event (the first decision) and none after a restart that kept the state.
printf '[{"identifier":"yard","center":{"latitude":47.3769,"longitude":8.5417},"radius":5000}]\n' >"$dev/regions.json"
chmod 644 "$dev/regions.json"
echo "GPSBRIDGE_OPTIONS=\"--device $dev/first --regions $dev/regions.json\"" >/etc/default/gpsbridge
timeout 30 systemctl --user restart gpsbridge.service
# Where systemd told the service to keep state (a user manager's is under its home).
pid=$(timeout 30 systemctl --user show -p MainPID --value gpsbridge.service)
directory=$(tr '\0' '\n' <"/proc/$pid/environ" | sed -n 's/^STATE_DIRECTORY=//p')
[ -n "$directory" ] || fail "the unit gives the service no STATE_DIRECTORY"
file="$directory/regions-run-receivers-first.monitor.json"
# Looked at again after each few reports the service sends (its progress, not the clock's).
for _ in $(seq 40); do
  grep -q '"lastEvent"' "$file" 2>/dev/null && break
  timeout 20 gpspipe -w -n 4 127.0.0.1:2947 >/dev/null 2>&1 || true
done
grep -q '"lastEvent"' "$file" 2>/dev/null || fail "no region state kept in $directory: $(ls -la "$directory" 2>&1)"
before=$(grep -o '"lastEvent":{[^}]*}' "$file")
timeout 30 systemctl --user restart gpsbridge.service
# Served again, and fixes read for some seconds since: a region said again would have been
# written at the first of them.
timeout 30 gpspipe -w -n 24 127.0.0.1:2947 >/dev/null 2>&1 || true
after=$(grep -o '"lastEvent":{[^}]*}' "$file")
[ "$before" = "$after" ] || fail "the restart said the region again: $before, then $after"
[ "$(timeout 30 systemctl --user is-active gpsbridge.service)" = active ] || fail "gpsbridge.service is not active after the restart"
echo "kept in $file across a restart: $after"

say "Security: listening beyond loopback warns"
warning=$(timeout 2 "$gpsbridge" serve --replay /dev/null --listen 0.0.0.0:2960 2>&1 || true)
printf '%s' "$warning" | grep -q "anyone who can reach it can read your location" || fail "no warning: $warning"
echo "OK"
