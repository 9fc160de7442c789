"""Reads gpsbridge serve's stream with Python's gps module (gpsd's own client library), the way
a gpsd client does, and prints each report's class, then the REGION and VISIT objects whole.

usage: watch.py PORT REGIONS(true|false) SECONDS
"""
import json
import sys
import time

import gps

port, regions, seconds = int(sys.argv[1]), sys.argv[2] == "true", float(sys.argv[3])
session = gps.gps(host="127.0.0.1", port=port)
if regions:
    session.send('?WATCH={"enable":true,"json":true,"regions":true}')
else:
    session.stream(gps.WATCH_ENABLE | gps.WATCH_JSON)
end = time.monotonic() + seconds
while time.monotonic() < end:
    if not session.waiting(0.5):
        continue
    if session.read() != 0:
        break
    report = json.loads(session.response)
    print("CLASS", report.get("class"), flush=True)
    if report.get("class") in ("REGION", "VISIT"):
        print("OBJECT", json.dumps(report, sort_keys=True), flush=True)
    if report.get("class") == "WATCH":
        print("WATCH", json.dumps(report, sort_keys=True), flush=True)
