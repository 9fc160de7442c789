"""The simulated journeys, sentence formatting and skies that Scripts/generate-fixtures.py
builds its captures from: plain Python, independent of the Swift code under test."""

import math
import random
from fractions import Fraction

KNOT = Fraction(1852, 3600)          # metres per second in one knot
EARTH_RADIUS = 6371008.8             # mean radius, metres

# UERE (1-sigma, metres) by quality, as documented on EpochAssembler.userEquivalentRangeError.
UERE = {"gps": 5.0, "dgps": 1.5, "pps": 1.5, "rtkFloat": 0.5, "rtkFixed": 0.03}


# ---------------------------------------------------------------------------------------------
# The journey: a list of states, one per receiver epoch.

class State:
    def __init__(self, t, lat, lon, alt, speed, course, has_fix=True):
        self.t = t            # seconds since the day's midnight of `day0` (may pass 86400)
        self.lat = lat
        self.lon = lon
        self.alt = alt
        self.speed = speed    # m/s
        self.course = course  # degrees true
        self.has_fix = has_fix


def journey(start_t, rate_hz, legs, lat=47.37690, lon=8.54170, alt=408.0, course=90.0):
    """Integrates legs of (seconds, speed m/s, turn rate deg/s, has_fix) into epoch states."""
    dt = 1.0 / rate_hz
    states = []
    t = start_t
    for seconds, speed, turn, has_fix in legs:
        for _ in range(int(round(seconds * rate_hz))):
            states.append(State(t, lat, lon, alt, speed, course % 360.0, has_fix))
            course += turn * dt
            distance = speed * dt
            lat += math.degrees(distance * math.cos(math.radians(course)) / EARTH_RADIUS)
            lon += math.degrees(distance * math.sin(math.radians(course)) / (EARTH_RADIUS * math.cos(math.radians(lat))))
            alt += 0.01 * speed * dt * math.sin(t / 50.0)
            t = round(t + dt, 6)
    return states


# ---------------------------------------------------------------------------------------------
# Formatting helpers: each returns the text and the exact value a decoder must read from it.

def checksum(body):
    value = 0
    for ch in body.encode("ascii"):
        value ^= ch
    return value


def sentence(body, lower=False):
    text = "%02X" % checksum(body)
    return "$%s*%s" % (body, text.lower() if lower else text)


def fmt_time(t, decimals):
    t = t % 86400.0
    whole = int(math.floor(t + 1e-9))
    frac = t - whole
    h, m, s = whole // 3600, whole // 60 % 60, whole % 60
    text = "%02d%02d%02d" % (h, m, s)
    if decimals:
        text += "." + ("%0*d" % (decimals, int(round(frac * 10 ** decimals))))
    return text


def iso_time(t):
    t = t % 86400.0
    whole = int(math.floor(t + 1e-9))
    millis = int(round((t - whole) * 1000))
    return "%02d:%02d:%02d.%03d" % (whole // 3600, whole // 60 % 60, whole % 60, millis)


def fmt_coord(value, degree_digits, decimals, hemispheres):
    hemisphere = hemispheres[0] if value >= 0 else hemispheres[1]
    value = abs(value)
    degrees = int(value)
    minutes = round((value - degrees) * 60, decimals)
    if minutes >= 60:
        degrees, minutes = degrees + 1, 0.0
    text = "%0*d%0*.*f" % (degree_digits, degrees, decimals + 3, decimals, minutes)
    exact = Fraction(degrees) + Fraction(text[degree_digits:]) / 60
    signed = float(exact) if hemisphere in "NE" else -float(exact)
    return text, hemisphere, signed


def fmt_number(value, decimals):
    text = "%.*f" % (decimals, value)
    return text, float(text)


def days_from_civil(y, m, d):
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(z):
    z += 719468
    era = (z if z >= 0 else z - 146096) // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return y + (m <= 2), m, d


def date_of(day0, t):
    return civil_from_days(days_from_civil(*day0) + int(t // 86400))


def nmea_date(day0, t):
    """The date of `t` seconds after the start of `day0` as RMC writes it: ddmmyy."""
    y, m, d = date_of(day0, t)
    return "%02d%02d%02d" % (d, m, y % 100)


def iso_timestamp(day0, t):
    y, m, d = date_of(day0, t)
    return "%04d-%02d-%02dT%sZ" % (y, m, d, iso_time(t))


# ---------------------------------------------------------------------------------------------
# A deterministic sky: satellites per constellation with slowly moving positions.

class Sky:
    def __init__(self, seed, systems):
        rng = random.Random(seed)
        self.sats = []   # (constellation, talker, number, elevation0, azimuth0, snr0)
        for constellation, talker, numbers in systems:
            for number in rng.sample(numbers, 7 if len(numbers) > 10 else min(4, len(numbers))):
                self.sats.append((constellation, talker, number, rng.randint(8, 85), rng.randint(0, 359), rng.randint(22, 48)))
        self.sats.sort(key=lambda s: (s[1], s[2]))

    def at(self, t):
        result = []
        for constellation, talker, number, elevation, azimuth, snr in self.sats:
            e = max(1, min(89, elevation + int(t / 600) % 3))
            a = (azimuth + int(t / 120)) % 360
            s = snr + int(t / 7 + number) % 4 if elevation > 10 else None
            result.append({"constellation": constellation, "talker": talker, "number": number,
                           "elevation": e, "azimuth": a, "snr": s})
        return result


def gsv_group(talker, sats, signal=None):
    """GSV sentences for one talker (and signal), padded the way receivers pad them."""
    total = max(1, math.ceil(len(sats) / 4))
    out = []
    for index in range(total):
        chunk = sats[index * 4:(index + 1) * 4]
        fields = ["%s" % total, "%d" % (index + 1), "%02d" % len(sats)]
        for sat in chunk:
            fields += ["%02d" % sat["number"], "%02d" % sat["elevation"], "%03d" % sat["azimuth"],
                       "" if sat["snr"] is None else "%02d" % sat["snr"]]
        if signal is not None:
            fields.append("%X" % signal)
        out.append(sentence("%sGSV,%s" % (talker, ",".join(fields))))
    return out


def expected_satellites(groups, used):
    """Mirrors the documented merge: order of first appearance, one entry per satellite."""
    result = []
    for sats in groups:
        for sat in sats:
            key = (sat["constellation"], sat["number"])
            existing = next((r for r in result if (r["constellation"], r["number"]) == key), None)
            if existing is not None:
                if sat["snr"] is not None and sat["snr"] > existing.get("snr", -1):
                    existing["snr"] = sat["snr"]
                continue
            entry = {"constellation": sat["constellation"], "number": sat["number"],
                     "elevation": sat["elevation"], "azimuth": sat["azimuth"], "isUsed": key in used}
            if sat["snr"] is not None:
                entry["snr"] = sat["snr"]
            result.append(entry)
    return result
