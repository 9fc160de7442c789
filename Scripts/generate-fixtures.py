#!/usr/bin/env python3
"""Writes gpsbridge's NMEA decoder fixtures and their ground truth, deterministically.

The expected fixes are computed here, in Python, from the text written into the sentences, so
they check the Swift decoder without sharing any of its code: that independence is why these
fixtures are not made by gpsbridge's own simulator (NMEASimulation), which writes everything
else (the demo drive, benchmark streams, test captures).

Each capture `Fixtures/NAME.nmea` is what a simulated receiver would send along a simulated
journey; beside it `Fixtures/NAME.expected.jsonl` holds one JSON object per receiver epoch:
the fix that a correct decoder must assemble from that epoch's sentences. The expected values
are computed here from the text written into the sentences (so they are exactly what the
receiver said), independently of the Swift code under test.

Run from the repository root:  python3 Scripts/generate-fixtures.py
Only the standard library is used. The output is the same on every run.
"""

import json
import math
import os
import random
import sys
from fractions import Fraction

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures")

# The journeys, formatting and skies: beside this script, imported whole.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture_journey import *  # noqa: E402,F403

# ---------------------------------------------------------------------------------------------
# Receiver profiles. Each turns one state into sentences and the expected fix.

def used_of(sky_now, limit=12):
    tracked = [s for s in sky_now if s["snr"] is not None]
    return tracked[:limit]


def write(name, header, epochs, extra_lines_at=None, golden=True):
    lines = list(header)
    expected = []
    for index, (sentences, fix) in enumerate(epochs):
        if extra_lines_at and index in extra_lines_at:
            lines.extend(extra_lines_at[index])
        lines.extend(sentences)
        expected.append(fix)
    with open(os.path.join(OUT, name + ".nmea"), "w", newline="") as f:
        f.write("".join(line + "\r\n" for line in lines))
    if not golden:
        return
    with open(os.path.join(OUT, name + ".expected.jsonl"), "w") as f:
        for fix in expected:
            f.write(json.dumps(fix, sort_keys=True) + "\n")


def accuracy(fix, quality, hdop, vdop):
    if hdop is not None:
        fix["horizontalAccuracy"] = hdop * UERE[quality]
    if vdop is not None and fix.get("mode") == "threeD":
        fix["verticalAccuracy"] = vdop * UERE[quality]


def ublox_m8(states, day0, sky):
    """u-blox M8 in NMEA 4.0 mode, 1 Hz: GN talker for the solution, one GSA per system."""
    for state in states:
        now = sky.at(state.t)
        gps = [s for s in now if s["talker"] == "GP"]
        glo = [s for s in now if s["talker"] == "GL"]
        used_gps, used_glo = used_of(gps), used_of(glo)
        time = fmt_time(state.t, 2)
        date = nmea_date(day0, state.t)
        fix = {"time": iso_time(state.t), "timestamp": iso_timestamp(day0, state.t),
               "satellites": expected_satellites([gps, glo], {(s["constellation"], s["number"]) for s in used_gps + used_glo}) if state.has_fix else expected_satellites([gps, glo], set())}
        out = []
        if state.has_fix:
            lat, ns, flat = fmt_coord(state.lat, 2, 5, "NS")
            lon, ew, flon = fmt_coord(state.lon, 3, 5, "EW")
            knots, fknots = fmt_number(state.speed / float(KNOT), 3)
            course_text, fcourse = (fmt_number(state.course, 2) if state.speed > 0.3 else ("", None))
            alt, falt = fmt_number(state.alt, 1)
            sep, fsep = "47.3", 47.3
            hdop, fh = fmt_number(0.9 + 0.1 * (int(state.t) % 5), 2)
            pdop, fp = fmt_number(fh + 0.5, 2)
            vdop, fv = fmt_number(fh + 0.3, 2)
            count = len(used_gps) + len(used_glo)
            out.append(sentence("GNRMC,%s,A,%s,%s,%s,%s,%s,%s,%s,,,A" % (time, lat, ns, lon, ew, knots, course_text, date)))
            out.append(sentence("GNVTG,%s,T,,M,%s,N,%s,K,A" % (course_text, knots, fmt_number(state.speed * 3.6, 3)[0])))
            out.append(sentence("GNGGA,%s,%s,%s,%s,%s,1,%02d,%s,%s,M,%s,M,," % (time, lat, ns, lon, ew, count, hdop, alt, sep)))
            for used in (used_gps, used_glo):
                slots = ["%02d" % s["number"] for s in used] + [""] * (12 - len(used))
                out.append(sentence("GNGSA,A,3,%s,%s,%s,%s" % (",".join(slots), pdop, hdop, vdop)))
            fix.update({"mode": "threeD", "quality": "gps", "latitude": flat, "longitude": flon,
                        "altitude": falt, "geoidSeparation": fsep, "speed": fknots * float(KNOT),
                        "satellitesUsed": count, "pdop": fp, "hdop": fh, "vdop": fv})
            if fcourse is not None:
                fix["course"] = fcourse
            accuracy(fix, "gps", fh, fv)
        else:
            out.append(sentence("GNRMC,%s,V,,,,,,,%s,,,N" % (time, date)))
            out.append(sentence("GNVTG,,,,,,,,,N"))
            out.append(sentence("GNGGA,%s,,,,,0,00,99.99,,,,,," % time))
            out.append(sentence("GNGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99"))
            out.append(sentence("GNGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99"))
            fix.update({"mode": "none", "quality": "invalid", "satellitesUsed": 0,
                        "pdop": 99.99, "hdop": 99.99, "vdop": 99.99})
        out += gsv_group("GP", gps) + gsv_group("GL", glo)
        if state.has_fix:
            out.append(sentence("GNGLL,%s,%s,%s,%s,%s,A,A" % (lat, ns, lon, ew, time)))
        else:
            out.append(sentence("GNGLL,,,,,%s,V,N" % time))
        yield out, fix


def sirf_nmea22(states, day0, sky):
    """SiRF-era receiver, NMEA 2.2: GPGGA, GPGSA, GPGSV, GPRMC (no mode field); RMC last."""
    for state in states:
        now = [s for s in sky.at(state.t) if s["talker"] == "GP"]
        used = used_of(now)
        time = fmt_time(state.t, 3)
        date = nmea_date(day0, state.t)
        fix = {"time": iso_time(state.t), "timestamp": iso_timestamp(day0, state.t)}
        out = []
        if state.has_fix:
            lat, ns, flat = fmt_coord(state.lat, 2, 4, "NS")
            lon, ew, flon = fmt_coord(state.lon, 3, 4, "EW")
            alt, falt = fmt_number(state.alt, 1)
            hdop, fh = fmt_number(1.2, 1)
            out.append(sentence("GPGGA,%s,%s,%s,%s,%s,1,%02d,%s,%s,M,,M,,0000" % (time, lat, ns, lon, ew, len(used), hdop, alt)))
            slots = ["%02d" % s["number"] for s in used] + [""] * (12 - len(used))
            out.append(sentence("GPGSA,A,3,%s,2.0,%s,1.6" % (",".join(slots), hdop)))
            knots, fknots = fmt_number(state.speed / float(KNOT), 2)
            course_text, fcourse = fmt_number(state.course, 2)
            fix.update({"mode": "threeD", "quality": "gps", "latitude": flat, "longitude": flon, "altitude": falt,
                        "satellitesUsed": len(used), "pdop": 2.0, "hdop": fh, "vdop": 1.6,
                        "speed": fknots * float(KNOT), "course": fcourse, "magneticVariation": -2.1})
            accuracy(fix, "gps", fh, 1.6)
            used_set = {(s["constellation"], s["number"]) for s in used}
        else:
            out.append(sentence("GPGGA,%s,,,,,0,00,,,M,0.0,M,,0000" % time))
            out.append(sentence("GPGSA,A,1,,,,,,,,,,,,,,,"))
            fix.update({"mode": "none", "quality": "invalid", "satellitesUsed": 0})
            used_set = set()
        out += gsv_group("GP", now)
        fix["satellites"] = expected_satellites([now], used_set)
        if state.has_fix:
            out.append(sentence("GPRMC,%s,A,%s,%s,%s,%s,%s,%s,%s,2.1,W" % (time, lat, ns, lon, ew, knots, course_text, date)))
        else:
            out.append(sentence("GPRMC,%s,V,,,,,,,%s,," % (time, date)))
        yield out, fix


def quectel_411(states, day0, sky):
    """A 10 Hz NMEA 4.11 receiver: GN RMC/GGA with navigation status, GSA with hex system
    IDs, GST every epoch, GSV with signal IDs only on whole seconds. GSV comes last on the
    seconds that have it, so the end of the cycle changes: a test of marker learning."""
    for state in states:
        now = sky.at(state.t)
        time = fmt_time(state.t, 2)
        date = nmea_date(day0, state.t)
        lat, ns, flat = fmt_coord(state.lat, 2, 7, "NS")
        lon, ew, flon = fmt_coord(state.lon, 3, 7, "EW")
        alt, falt = fmt_number(state.alt, 3)
        knots, fknots = fmt_number(state.speed / float(KNOT), 3)
        course_text, fcourse = fmt_number(state.course, 1)
        groups = {"GP": [s for s in now if s["talker"] == "GP"], "GA": [s for s in now if s["talker"] == "GA"],
                  "GB": [s for s in now if s["talker"] == "GB"]}
        used = {k: used_of(v, 12) for k, v in groups.items()}
        count = sum(len(v) for v in used.values())
        out = [sentence("GNRMC,%s,A,%s,%s,%s,%s,%s,%s,%s,,,R,V" % (time, lat, ns, lon, ew, knots, course_text, date)),
               sentence("GNGGA,%s,%s,%s,%s,%s,4,%02d,0.62,%s,M,-1.250,M,1.0,0123" % (time, lat, ns, lon, ew, count, alt))]
        for talker, system in (("GP", 1), ("GA", 3), ("GB", 4)):
            slots = ["%02d" % s["number"] for s in used[talker]] + [""] * (12 - len(used[talker]))
            out.append(sentence("GNGSA,A,3,%s,1.10,0.62,0.91,%X" % (",".join(slots), system)))
        sig_lat, sig_lon, sig_alt = 0.012, 0.010, 0.021
        out.append(sentence("GNGST,%s,0.8,0.015,0.009,41.5,%.3f,%.3f,%.3f" % (time, sig_lat, sig_lon, sig_alt)))
        whole_second = abs(state.t - round(state.t)) < 1e-6
        if whole_second:
            out += gsv_group("GP", groups["GP"], 1) + gsv_group("GA", groups["GA"], 7) + gsv_group("GB", groups["GB"], 1)
        used_set = {(s["constellation"], s["number"]) for v in used.values() for s in v}
        fix = {"time": iso_time(state.t), "timestamp": iso_timestamp(day0, state.t), "mode": "threeD",
               "quality": "rtkFixed", "latitude": flat, "longitude": flon, "altitude": falt, "geoidSeparation": -1.25,
               "speed": fknots * float(KNOT), "course": fcourse, "satellitesUsed": count, "pdop": 1.1, "hdop": 0.62,
               "vdop": 0.91,
               "errorEstimate": {"rangeRMS": 0.8, "semiMajor": 0.015, "semiMinor": 0.009, "orientation": 41.5,
                                 "latitude": sig_lat, "longitude": sig_lon, "altitude": sig_alt},
               "horizontalAccuracy": math.sqrt(sig_lat * sig_lat + sig_lon * sig_lon), "verticalAccuracy": sig_alt}
        yield out, fix, whole_second, [groups["GP"], groups["GA"], groups["GB"]], used_set


def with_sky_carried(epochs):
    """Sky views persist between GSV groups: an epoch without GSV reports the last one seen.

    Here GSV follows GST only on whole seconds. The decoder learns GST as the end of the
    cycle (it ends nine epochs in ten), so from the second whole second on, the GSV group
    arrives after its epoch was emitted and shows in the next fix: the documented price of
    emitting each fix without waiting. The very first epoch, closed by the next time stamp
    before any cycle end is learned, still has its own GSV."""
    last = None
    pending = None
    first = True
    for out, fix, has_gsv, groups, used_set in epochs:
        if pending is not None:
            last, pending = pending, None
        if has_gsv:
            if first:
                last = groups
            else:
                pending = groups
        first = False
        fix["satellites"] = expected_satellites(last, used_set) if last else []
        yield out, fix


def gga_only(states, day0):
    """A bare receiver that sends only GGA, 5 Hz; the date comes from the capture's header."""
    for state in states:
        time = fmt_time(state.t, 1)
        lat, ns, flat = fmt_coord(state.lat, 2, 6, "NS")
        lon, ew, flon = fmt_coord(state.lon, 3, 6, "EW")
        alt, falt = fmt_number(state.alt, 2)
        out = [sentence("GPGGA,%s,%s,%s,%s,%s,2,09,1.10,%s,M,48.0,M,3.2,0402" % (time, lat, ns, lon, ew, alt))]
        fix = {"time": iso_time(state.t), "timestamp": iso_timestamp(day0, state.t), "mode": "threeD", "quality": "dgps",
               "latitude": flat, "longitude": flon, "altitude": falt, "geoidSeparation": 48.0, "satellitesUsed": 9,
               "hdop": 1.1, "horizontalAccuracy": 1.1 * UERE["dgps"], "satellites": []}
        yield out, fix


def marine_05hz(states, day0, sky):
    """A chart plotter's receiver at 0.5 Hz with a heading sensor: RMC, GGA, GSA, GSV, a
    gyro's HEHDT, then (on alternate epochs) THS, and a proprietary $PGRME last."""
    for index, state in enumerate(states):
        now = [s for s in sky.at(state.t) if s["talker"] == "GP"]
        used = used_of(now)
        time = fmt_time(state.t, 0)
        date = nmea_date(day0, state.t)
        lat, ns, flat = fmt_coord(state.lat, 2, 8, "NS")
        lon, ew, flon = fmt_coord(state.lon, 3, 8, "EW")
        knots, fknots = fmt_number(state.speed / float(KNOT), 1)
        course_text, fcourse = fmt_number(state.course, 1)
        heading_text, fheading = fmt_number((state.course + 3.5) % 360, 1)
        slots = ["%02d" % s["number"] for s in used] + [""] * (12 - len(used))
        out = [sentence("GPRMC,%s,A,%s,%s,%s,%s,%s,%s,%s,1.5,E,D" % (time, lat, ns, lon, ew, knots, course_text, date)),
               sentence("GPGGA,%s,%s,%s,%s,%s,2,%02d,0.9,2.5,M,50.1,M,," % (time, lat, ns, lon, ew, len(used)), lower=True),
               sentence("GPGSA,A,3,%s,1.6,0.9,1.3" % ",".join(slots))]
        out += gsv_group("GP", now)
        out.append(sentence("HEHDT,%s,T" % heading_text))
        if index % 2:
            out.append(sentence("HETHS,%s,A" % heading_text))
        out.append(sentence("PGRME,2.3,M,3.1,M,3.8,M"))
        fix = {"time": iso_time(state.t), "timestamp": iso_timestamp(day0, state.t), "mode": "threeD", "quality": "dgps",
               "latitude": flat, "longitude": flon, "altitude": 2.5, "geoidSeparation": 50.1,
               "speed": fknots * float(KNOT), "course": fcourse, "magneticVariation": 1.5, "trueHeading": fheading,
               "satellitesUsed": len(used), "pdop": 1.6, "hdop": 0.9, "vdop": 1.3,
               "satellites": expected_satellites([now], {(s["constellation"], s["number"]) for s in used})}
        accuracy(fix, "dgps", 0.9, 1.3)
        yield out, fix


# ---------------------------------------------------------------------------------------------

GPS = ("gps", "GP", list(range(1, 33)))
GLONASS = ("glonass", "GL", list(range(65, 89)))
GALILEO = ("galileo", "GA", list(range(1, 37)))
BEIDOU = ("beidou", "GB", list(range(1, 38)))


def main():
    os.makedirs(OUT, exist_ok=True)

    # A cold start (no fix), then a short drive with a turn, a stop and a tunnel.
    day = (2024, 5, 1)
    states = journey(10 * 3600 + 15 * 60, 1, [(6, 0, 0, False), (40, 12, 0, True), (20, 10, 4.5, True),
                                                (15, 0, 0, True), (8, 14, 0, False), (30, 14, -1, True)])
    write("ublox-m8-1hz", ["# Device: simulated u-blox M8, NMEA 4.0, 1 Hz"],
          ublox_m8(states, day, Sky(1, [GPS, GLONASS])),
          extra_lines_at={0: [sentence("GPTXT,01,01,02,u-blox ag - www.u-blox.com"),
                              sentence("GPTXT,01,01,02,ANTSTATUS=OK")]})

    states = journey(23 * 3600 + 59 * 60 + 30, 1, [(4, 0, 0, False), (56, 8, 1, True)], lat=-33.86, lon=151.21, alt=30)
    write("sirf-nmea22-1hz", ["# Device: simulated SiRF III, NMEA 2.2, 1 Hz, across midnight"],
          sirf_nmea22(states, (2023, 12, 31), Sky(2, [GPS])))

    states = journey(23 * 3600 + 59 * 60 + 55, 10, [(10, 1.5, 3, True)], lat=52.52, lon=13.405, alt=34.5)
    write("quectel-nmea411-10hz", ["# Device: simulated Quectel LC29H, NMEA 4.11, 10 Hz RTK, across midnight"],
          with_sky_carried(quectel_411(states, (2024, 2, 28), Sky(3, [GPS, GALILEO, BEIDOU]))))

    states = journey(23 * 3600 + 59 * 60 + 50, 5, [(20, 20, 0.5, True)], lat=40.7128, lon=-74.0060, alt=10)
    write("gga-only-5hz", ["# Date: 2024-12-31", "# Device: simulated bare GGA receiver, 5 Hz"],
          gga_only(states, (2024, 12, 31)))

    states = journey(6 * 3600, 0.5, [(120, 4, 0.3, True)], lat=-0.5, lon=-90.3, alt=2.5, course=200)
    write("marine-0.5hz", ["# Device: simulated marine receiver with a heading sensor, 0.5 Hz"],
          marine_05hz(states, (2025, 7, 14), Sky(4, [GPS])))

    receiver_habits()


# ---------------------------------------------------------------------------------------------
# Receiver habits: captures that exercise how real receivers cut their cycles, for the
# differential check against gpsd (Scripts/compare-with-gpsd) and the epoch-assembly tests.
# They have no expected fixes of their own: gpsd's decoder is their oracle.

HABITS = os.path.join(OUT, "receivers")


def write_habit(name, header, lines):
    os.makedirs(HABITS, exist_ok=True)
    with open(os.path.join(HABITS, name + ".nmea"), "w", newline="") as f:
        f.write("".join(line + "\r\n" for line in list(header) + lines))


def corrupt(line):
    """A line hit by noise on the wire: one character changed, so its checksum fails."""
    index = len(line) // 2
    return line[:index] + ("X" if line[index] != "X" else "Y") + line[index + 1:]


def mediatek_cold_start(states, day0, sky):
    """A MediaTek-style receiver from a cold start: minutes of cycles with every field empty
    (no time yet), then fixes with RMC and VTG after GGA, GSA and GSV; later a stretch under
    a bridge where the time is kept but the fix is lost (a shorter, timed no-fix cycle)."""
    lines = []
    for _ in range(150):
        lines += [sentence("GPGGA,,,,,,0,00,,,M,,M,,"), sentence("GPGSA,A,1,,,,,,,,,,,,,,,"),
                  sentence("GPRMC,,V,,,,,,,,,,N"), sentence("GPVTG,,T,,M,,N,,K,N")]
    for state in states:
        now = [s for s in sky.at(state.t) if s["talker"] == "GP"]
        time = fmt_time(state.t, 3)
        date = nmea_date(day0, state.t)
        if not state.has_fix:
            lines += [sentence("GPGGA,%s,,,,,0,00,,,M,,M,," % time), sentence("GPRMC,%s,V,,,,,,,%s,,,N" % (time, date))]
            continue
        used = used_of(now)
        lat, ns, _ = fmt_coord(state.lat, 2, 4, "NS")
        lon, ew, _ = fmt_coord(state.lon, 3, 4, "EW")
        knots = fmt_number(state.speed / float(KNOT), 2)[0]
        course = fmt_number(state.course, 2)[0]
        slots = ["%02d" % s["number"] for s in used] + [""] * (12 - len(used))
        lines += [sentence("GPGGA,%s,%s,%s,%s,%s,1,%02d,0.9,%s,M,47.9,M,,"
                           % (time, lat, ns, lon, ew, len(used), fmt_number(state.alt, 1)[0])),
                  sentence("GPGSA,A,3,%s,1.5,0.9,1.2" % ",".join(slots))]
        lines += gsv_group("GP", now)
        lines += [sentence("GPRMC,%s,A,%s,%s,%s,%s,%s,%s,%s,,,A" % (time, lat, ns, lon, ew, knots, course, date)),
                  sentence("GPVTG,%s,T,,M,%s,N,%s,K,A" % (course, knots, fmt_number(state.speed * 3.6, 2)[0]))]
    return lines


def garmin_nmea20(states, day0, sky):
    """An NMEA 2.0 receiver (no mode fields anywhere) on a noisy line: RMC, GGA, GSA, GSV,
    GLL and Garmin's $PGRME; now and then a sentence is corrupted, and some seconds only the
    GLL gets through."""
    lines = []
    rng = random.Random(20)
    for index, state in enumerate(states):
        now = [s for s in sky.at(state.t) if s["talker"] == "GP"]
        used = used_of(now)
        time = fmt_time(state.t, 0)
        date = nmea_date(day0, state.t)
        lat, ns, _ = fmt_coord(state.lat, 2, 4, "NS")
        lon, ew, _ = fmt_coord(state.lon, 3, 4, "EW")
        slots = ["%02d" % s["number"] for s in used] + [""] * (12 - len(used))
        epoch = [sentence("GPRMC,%s,A,%s,%s,%s,%s,%s,%s,%s,1.9,E" % (time, lat, ns, lon, ew,
                          fmt_number(state.speed / float(KNOT), 1)[0], fmt_number(state.course, 1)[0], date)),
                 sentence("GPGGA,%s,%s,%s,%s,%s,1,%02d,1.1,%s,M,-22.1,M,," % (time, lat, ns, lon, ew, len(used),
                                                                             fmt_number(state.alt, 1)[0])),
                 sentence("GPGSA,A,3,%s,2.1,1.1,1.8" % ",".join(slots))]
        epoch += gsv_group("GP", now)
        epoch += [sentence("GPGLL,%s,%s,%s,%s,%s,A" % (lat, ns, lon, ew, time)),
                  sentence("PGRME,5.1,M,7.3,M,8.9,M")]
        if index % 17 == 9:
            epoch = [epoch[-2]]                        # only the GLL got through
        elif rng.random() < 0.15:
            hit = rng.randrange(len(epoch))
            epoch[hit] = corrupt(epoch[hit])
        lines += epoch
    return lines


def mixed_precision(states, day0):
    """A receiver whose GGA carries five decimals of minutes and whose RMC and GLL carry four,
    rounded, at 5 Hz: the fuller position must survive the later, rounded ones."""
    lines = []
    for state in states:
        time = fmt_time(state.t, 2)
        date = nmea_date(day0, state.t)
        lat5, ns, _ = fmt_coord(state.lat, 2, 5, "NS")
        lon5, ew, _ = fmt_coord(state.lon, 3, 5, "EW")
        lat4, _, _ = fmt_coord(state.lat, 2, 4, "NS")
        lon4, _, _ = fmt_coord(state.lon, 3, 4, "EW")
        lines += [sentence("GPGGA,%s,%s,%s,%s,%s,1,10,0.8,%s,M,34.0,M,," % (time, lat5, ns, lon5, ew, fmt_number(state.alt, 1)[0])),
                  sentence("GPRMC,%s,A,%s,%s,%s,%s,%s,%s,%s,,,A" % (time, lat4, ns, lon4, ew,
                           fmt_number(state.speed / float(KNOT), 2)[0], fmt_number(state.course, 1)[0], date)),
                  sentence("GPGLL,%s,%s,%s,%s,%s,A,A" % (lat4, ns, lon4, ew, time))]
    return lines


def marine_gateway(states, day0):
    """An NMEA 2000 to 0183 gateway: GGA, RMC and GLL share the time stamp but each carries
    the position sampled when that PGN arrived, so the last digits differ; wind, depth and
    heading from other instruments are interleaved."""
    lines = []
    for state in states:
        time = fmt_time(state.t, 2)
        date = nmea_date(day0, state.t)
        step = state.speed * 0.3 / EARTH_RADIUS  # 0.3 s of travel, in radians
        positions = []
        for k in range(3):
            lat = state.lat + math.degrees(step * k * math.cos(math.radians(state.course)))
            lon = state.lon + math.degrees(step * k * math.sin(math.radians(state.course)) / math.cos(math.radians(state.lat)))
            positions.append((fmt_coord(lat, 2, 6, "NS"), fmt_coord(lon, 3, 6, "EW")))
        (lat0, ns0, _), (lon0, ew0, _) = positions[0]
        (lat1, ns1, _), (lon1, ew1, _) = positions[1]
        (lat2, ns2, _), (lon2, ew2, _) = positions[2]
        lines += [sentence("GPGGA,%s,%s,%s,%s,%s,1,09,0.9,1.5,M,-2.0,M,," % (time, lat0, ns0, lon0, ew0)),
                  sentence("IIMWV,045.0,R,12.4,N,A"),
                  sentence("GPRMC,%s,A,%s,%s,%s,%s,%s,%s,%s,0.5,W,A" % (time, lat1, ns1, lon1, ew1,
                           fmt_number(state.speed / float(KNOT), 1)[0], fmt_number(state.course, 1)[0], date)),
                  sentence("SDDPT,12.3,0.5"),
                  sentence("HEHDT,%s,T" % fmt_number((state.course + 2) % 360, 1)[0]),
                  sentence("GPGLL,%s,%s,%s,%s,%s,A,A" % (lat2, ns2, lon2, ew2, time))]
    return lines


def multi_gnss(states, day0, sky):
    """A multi-GNSS receiver in NMEA 4.0 style: the combined solution with talker GN, one GSA
    and one GSV group per constellation under its own talker, and after the GNGGA a GPGGA with
    the GPS-only solution a few decimetres away."""
    lines = []
    for state in states:
        now = sky.at(state.t)
        time = fmt_time(state.t, 2)
        date = nmea_date(day0, state.t)
        lat, ns, _ = fmt_coord(state.lat, 2, 5, "NS")
        lon, ew, _ = fmt_coord(state.lon, 3, 5, "EW")
        gps_lat, gns, _ = fmt_coord(state.lat + 3e-6, 2, 5, "NS")
        gps_lon, gew, _ = fmt_coord(state.lon - 2e-6, 3, 5, "EW")
        groups = [(t, [s for s in now if s["talker"] == t]) for t in ("GP", "GL", "GA")]
        count = sum(len(used_of(g)) for _, g in groups)
        lines += [sentence("GNRMC,%s,A,%s,%s,%s,%s,%s,%s,%s,,,A" % (time, lat, ns, lon, ew,
                           fmt_number(state.speed / float(KNOT), 3)[0], fmt_number(state.course, 2)[0], date)),
                  sentence("GNGGA,%s,%s,%s,%s,%s,1,%02d,0.7,%s,M,47.3,M,," % (time, lat, ns, lon, ew, count, fmt_number(state.alt, 1)[0])),
                  sentence("GPGGA,%s,%s,%s,%s,%s,1,%02d,1.1,%s,M,47.3,M,," % (time, gps_lat, gns, gps_lon, gew,
                                                                            len(used_of(groups[0][1])), fmt_number(state.alt + 0.4, 1)[0]))]
        for talker, group in groups:
            used = used_of(group)
            slots = ["%02d" % s["number"] for s in used] + [""] * (12 - len(used))
            lines.append(sentence("%sGSA,A,3,%s,1.2,0.7,1.0" % (talker, ",".join(slots))))
        for talker, group in groups:
            lines += gsv_group(talker, group)
        lines.append(sentence("GNGLL,%s,%s,%s,%s,%s,A,A" % (lat, ns, lon, ew, time)))
    return lines


def ublox_20hz(states, day0, sky):
    """A u-blox at 20 Hz: RMC, VTG, GGA, two GSA every 50 ms; GSV and GLL only on whole seconds."""
    lines = []
    for state in states:
        time = fmt_time(state.t, 2)
        date = nmea_date(day0, state.t)
        lat, ns, _ = fmt_coord(state.lat, 2, 7, "NS")
        lon, ew, _ = fmt_coord(state.lon, 3, 7, "EW")
        knots = fmt_number(state.speed / float(KNOT), 3)[0]
        course = fmt_number(state.course, 2)[0]
        lines += [sentence("GNRMC,%s,A,%s,%s,%s,%s,%s,%s,%s,,,A" % (time, lat, ns, lon, ew, knots, course, date)),
                  sentence("GNVTG,%s,T,,M,%s,N,%s,K,A" % (course, knots, fmt_number(state.speed * 3.6, 3)[0])),
                  sentence("GNGGA,%s,%s,%s,%s,%s,1,16,0.62,%s,M,47.3,M,," % (time, lat, ns, lon, ew, fmt_number(state.alt, 2)[0])),
                  sentence("GNGSA,A,3,02,05,07,09,13,16,20,26,29,30,,,1.10,0.62,0.91,1"),
                  sentence("GNGSA,A,3,66,67,76,77,82,83,,,,,,,1.10,0.62,0.91,2")]
        if abs(state.t - round(state.t)) < 1e-6:
            now = sky.at(state.t)
            lines += gsv_group("GP", [s for s in now if s["talker"] == "GP"], 1)
            lines += gsv_group("GL", [s for s in now if s["talker"] == "GL"], 1)
            lines.append(sentence("GNGLL,%s,%s,%s,%s,%s,A,A" % (lat, ns, lon, ew, time)))
    return lines


def stamped_apart(states, day0):
    """A receiver that stamps GGA on the second and RMC 50 ms later, in one cycle."""
    lines = []
    for state in states:
        date = nmea_date(day0, state.t)
        lat, ns, _ = fmt_coord(state.lat, 2, 4, "NS")
        lon, ew, _ = fmt_coord(state.lon, 3, 4, "EW")
        lines += [sentence("GPGGA,%s,%s,%s,%s,%s,1,08,1.0,%s,M,47.0,M,," % (fmt_time(state.t, 3), lat, ns, lon, ew, fmt_number(state.alt, 1)[0])),
                  sentence("GPRMC,%s,A,%s,%s,%s,%s,%s,%s,%s,,,A" % (fmt_time(state.t + 0.05, 3), lat, ns, lon, ew,
                           fmt_number(state.speed / float(KNOT), 2)[0], fmt_number(state.course, 1)[0], date))]
    return lines


def jittered_stamps(states, day0):
    """An old handheld whose stamps jitter inside a burst: GLL at .295 s (three decimals), GGA
    and RMC at .30 s (two). One epoch each, at the later stamp."""
    lines = []
    for state in states:
        date = nmea_date(day0, state.t)
        lat, ns, _ = fmt_coord(state.lat, 2, 4, "NS")
        lon, ew, _ = fmt_coord(state.lon, 3, 4, "EW")
        lines += [sentence("GPGLL,%s,%s,%s,%s,%s,A" % (lat, ns, lon, ew, fmt_time(state.t + 0.295, 3))),
                  sentence("GPGGA,%s,%s,%s,%s,%s,1,06,1.4,%s,M,-34.0,M,," % (fmt_time(state.t + 0.3, 2), lat, ns, lon, ew,
                           fmt_number(state.alt, 1)[0])),
                  sentence("GPRMC,%s,A,%s,%s,%s,%s,%s,%s,%s,,,A" % (fmt_time(state.t + 0.3, 2), lat, ns, lon, ew,
                           fmt_number(state.speed / float(KNOT), 1)[0], fmt_number(state.course, 1)[0], date))]
    return lines


def stale_gga(states, day0):
    """An instrument multiplexer that stamps GGA with the last time it saw: each burst has the
    receiver's RMC and GLL for the current second, then a heading sensor's HDT, then a GGA
    stamped with the previous second but holding the current position. Each epoch is the
    RMC's and GLL's; the GGA is a straggler of the epoch before and is dropped."""
    lines = []
    previous = None
    for state in states:
        time = fmt_time(state.t, 2)
        date = nmea_date(day0, state.t)
        lat, ns, _ = fmt_coord(state.lat, 2, 4, "NS")
        lon, ew, _ = fmt_coord(state.lon, 3, 4, "EW")
        lines += [sentence("GPRMC,%s,A,%s,%s,%s,%s,%s,%s,%s,,,A" % (time, lat, ns, lon, ew,
                           fmt_number(state.speed / float(KNOT), 1)[0], fmt_number(state.course, 1)[0], date)),
                  sentence("GPGLL,%s,%s,%s,%s,%s,A,A" % (lat, ns, lon, ew, time)),
                  sentence("HEHDT,%s,T" % fmt_number((state.course + 1) % 360, 1)[0])]
        if previous is not None:
            lines.append(sentence("GPGGA,%s,%s,%s,%s,%s,1,07,1.1,%s,M,40.0,M,," % (fmt_time(previous.t, 2), lat, ns, lon, ew,
                                  fmt_number(state.alt, 1)[0])))
        previous = state
    return lines


def ahead_rmc_multiplexer(states, day0):
    """An instrument multiplexer that forwards the receiver's GGA and GLL and then sends RMC
    and ZDA of its own, stamped by its own clock a second ahead: each burst's RMC and ZDA carry
    the second after its GGA and GLL, with the same position. Grouped by stamp, the epoch at T
    is the RMC and ZDA that closed the burst before and the GGA and GLL that open this one."""
    lines = []
    for state in states:
        lat, ns, _ = fmt_coord(state.lat, 2, 4, "NS")
        lon, ew, _ = fmt_coord(state.lon, 3, 4, "EW")
        time, ahead = fmt_time(state.t, 2), fmt_time(state.t + 1, 2)
        date = nmea_date(day0, state.t + 1)
        lines += [sentence("GPGGA,%s,%s,%s,%s,%s,1,09,0.9,%s,M,44.0,M,," % (time, lat, ns, lon, ew, fmt_number(state.alt, 1)[0])),
                  sentence("GPGLL,%s,%s,%s,%s,%s,A,A" % (lat, ns, lon, ew, time)),
                  sentence("GPRMC,%s,A,%s,%s,%s,%s,%s,%s,%s,,,A" % (ahead, lat, ns, lon, ew,
                           fmt_number(state.speed / float(KNOT), 1)[0], fmt_number(state.course, 1)[0], date)),
                  sentence("GPZDA,%s,%s,%s,%s,00,00" % (ahead, date[0:2], date[2:4], "20" + date[4:6]))]
    return lines


def sent_second_handheld(states, day0, sky):
    """An old handheld at 4800 baud with a two-second cycle, stamping each sentence with the
    second it is sent in: the burst's RMC and GGA carry the fix's second, and the GSA, GSV and
    GLL that follow more than a second later carry the next one, with the same position. One
    epoch per burst, at the fix's second."""
    lines = []
    for state in states:
        lat, ns, _ = fmt_coord(state.lat, 2, 4, "NS")
        lon, ew, _ = fmt_coord(state.lon, 3, 4, "EW")
        time, later = fmt_time(state.t, 0), fmt_time(state.t + 1, 0)
        date = nmea_date(day0, state.t)
        now = sky.at(state.t)
        used = used_of(now)
        lines += [sentence("GPRMC,%s,A,%s,%s,%s,%s,%s,%s,%s,,," % (time, lat, ns, lon, ew,
                           fmt_number(state.speed / float(KNOT), 1)[0], fmt_number(state.course, 0)[0], date)),
                  sentence("GPGGA,%s,%s,%s,%s,%s,1,%02d,1.5,%s,M,-2.0,M,," % (time, lat, ns, lon, ew, len(used),
                           fmt_number(state.alt, 1)[0])),
                  sentence("GPGSA,A,3,%s,2.4,1.5,1.9" % ",".join([("%02d" % s["number"]) for s in used] + [""] * (12 - len(used))))]
        lines += gsv_group("GP", now)
        lines.append(sentence("GPGLL,%s,%s,%s,%s,%s,A" % (lat, ns, lon, ew, later)))
    return lines


def millisecond_handheld(states, day0):
    """An old handheld whose sentences of one burst are stamped a few milliseconds apart, as its
    firmware reads the clock for each: RMC at the fix time, GGA 3 to 8 ms later and GLL 6 to
    14 ms later, so that some bursts straddle a whole second (RMC at .996, GGA at .001). One
    epoch per burst, at the RMC's stamp."""
    lines = []
    rng = random.Random(41)
    for state in states:
        lat, ns, _ = fmt_coord(state.lat, 2, 4, "NS")
        lon, ew, _ = fmt_coord(state.lon, 3, 4, "EW")
        start = state.t - (0.004 if int(state.t) % 5 == 0 else 0.0)
        gga = start + rng.randint(3, 8) / 1000.0
        gll = gga + rng.randint(3, 6) / 1000.0
        date = nmea_date(day0, start)
        lines += [sentence("GPRMC,%s,A,%s,%s,%s,%s,%s,%s,%s,,,A" % (fmt_time(start, 3), lat, ns, lon, ew,
                           fmt_number(state.speed / float(KNOT), 1)[0], fmt_number(state.course, 1)[0], date)),
                  sentence("GPGGA,%s,%s,%s,%s,%s,1,05,2.0,%s,M,12.0,M,," % (fmt_time(gga, 3), lat, ns, lon, ew,
                           fmt_number(state.alt, 1)[0])),
                  sentence("GPGLL,%s,%s,%s,%s,%s,A,A" % (lat, ns, lon, ew, fmt_time(gll, 3)))]
    return lines


def receiver_habits():
    day = (2024, 5, 1)
    states = journey(9 * 3600, 1, [(30, 8, 0, True), (12, 8, 1, False), (30, 10, -1, True)], lat=51.5074, lon=-0.1278, alt=20)
    write_habit("mediatek-cold-start-1hz", ["# Device: simulated MediaTek MT3339, cold start, then a bridge"],
                mediatek_cold_start(states, day, Sky(11, [GPS])))

    states = journey(14 * 3600, 1, [(90, 6, 0.5, True)], lat=37.7749, lon=-122.4194, alt=15)
    write_habit("garmin-nmea20-noisy-1hz", ["# Device: simulated Garmin GPS 18, NMEA 2.0, on a noisy line"],
                garmin_nmea20(states, day, Sky(12, [GPS])))

    states = journey(10 * 3600, 5, [(30, 12, 2, True)], lat=20.6288, lon=-103.3857, alt=1550)
    write_habit("mixed-precision-5hz", ["# Device: simulated receiver, 5-decimal GGA, 4-decimal RMC and GLL"],
                mixed_precision(states, day))

    states = journey(7 * 3600, 1, [(60, 3, 0.2, True)], lat=43.2965, lon=5.3698, alt=1.5, course=180)
    write_habit("marine-gateway-1hz", ["# Device: simulated NMEA 2000 gateway with wind, depth and heading"],
                marine_gateway(states, day))

    states = journey(11 * 3600, 1, [(60, 15, 0.3, True)], lat=48.8566, lon=2.3522, alt=35)
    write_habit("multi-gnss-nmea40-1hz", ["# Device: simulated multi-GNSS receiver, NMEA 4.0, per-constellation talkers"],
                multi_gnss(states, day, Sky(13, [GPS, GLONASS, GALILEO])))

    states = journey(12 * 3600, 20, [(6, 25, 5, True)], lat=45.4642, lon=9.19, alt=120)
    write_habit("ublox-f9-20hz", ["# Device: simulated u-blox F9 at 20 Hz"], ublox_20hz(states, day, Sky(14, [GPS, GLONASS])))

    states = journey(13 * 3600, 1, [(40, 9, 0, True)], lat=59.3293, lon=18.0686, alt=28)
    write_habit("stamped-apart-1hz", ["# Device: simulated receiver stamping RMC 50 ms after GGA"], stamped_apart(states, day))

    states = journey(16 * 3600, 1, [(40, 1.5, 2, True)], lat=-36.8485, lon=174.7633, alt=30)
    write_habit("jittered-stamps-1hz", ["# Device: simulated handheld whose GLL is stamped 5 ms before GGA and RMC"],
                jittered_stamps(states, day))

    states = journey(8 * 3600, 1, [(40, 4, 0.5, True)], lat=60.3913, lon=5.3221, alt=3)
    write_habit("stale-gga-multiplexer-1hz", ["# Device: simulated instrument multiplexer stamping GGA with the previous second"],
                stale_gga(states, day))

    states = journey(6 * 3600, 1, [(40, 5, 0.5, True)], lat=57.7089, lon=11.9746, alt=4)
    write_habit("ahead-rmc-multiplexer-1hz", ["# Device: simulated instrument multiplexer stamping RMC and ZDA a second after GGA and GLL"],
                ahead_rmc_multiplexer(states, day))

    states = journey(17 * 3600, 0.5, [(80, 1.4, 1, True)], lat=46.5197, lon=6.6323, alt=372)
    write_habit("sent-second-handheld-0.5hz", ["# Device: simulated old handheld stamping each sentence with the second it is sent in"],
                sent_second_handheld(states, day, Sky(16, [GPS])))

    states = journey(18 * 3600, 1, [(40, 1.2, -1, True)], lat=-33.9249, lon=18.4241, alt=10)
    write_habit("millisecond-handheld-1hz", ["# Device: simulated old handheld stamping each sentence a few milliseconds apart"],
                millisecond_handheld(states, day))

    first = journey(15 * 3600 + 20 * 60, 1, [(20, 10, 0, True)], lat=35.6762, lon=139.6503, alt=40)
    second = journey(15 * 3600, 1, [(20, 10, 0, True)], lat=35.6800, lon=139.6600, alt=40)
    write_habit("spliced-backwards-1hz", ["# Device: two recordings spliced together, the second from earlier that day"],
                [line for out, _ in ublox_m8(first + second, day, Sky(15, [GPS, GLONASS])) for line in out])

    write_habit("one-rmc", ["# Device: a capture of one sentence"],
                [sentence("GPRMC,161229.487,A,3723.2475,N,12158.3416,W,0.13,309.62,120598,,,A")])


if __name__ == "__main__":
    main()
