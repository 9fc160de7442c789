/// The status page: one HTML document with its style and script inside, so it works on a box
/// with no internet and loads nothing from anywhere (its Content-Security-Policy says so).
/// It draws the status it was served with at once, then follows `/events` (Server-Sent
/// Events): no polling loop. Everything from the box is put in with `textContent` or as SVG
/// attributes, never as markup.
enum StatusPage {
  /// The page, with `status` (the JSON of ``BoxStatus``) to draw before the first event.
  static func html(initial status: [UInt8]) -> [UInt8] {
    // JSON inside a script element: no "<" at all, so no "</script>", "<!--" or "<script" in a
    // receiver's link name or a caster's status line (someone else's words) can end or change
    // the element; "\u003c" is the same character to JSON.parse. ">" and "&" likewise.
    var json: [UInt8] = []
    json.reserveCapacity(status.count + 64)
    for byte in status {
      switch byte {
      case UInt8(ascii: "<"): json += Array(#"\u003c"#.utf8)
      case UInt8(ascii: ">"): json += Array(#"\u003e"#.utf8)
      case UInt8(ascii: "&"): json += Array(#"\u0026"#.utf8)
      default: json.append(byte)
      }
    }
    return Array(head.utf8) + json + Array(tail.utf8)
  }

  private static let head = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>gpsbridge</title>
    <style>
    :root { color-scheme: light dark; --fg: #1d2330; --muted: #667085; --bg: #f5f6f8; --card: #fff; --line: #d9dde5;
      --ok: #1a7f37; --warn: #b54708; --bad: #b42318; }
    @media (prefers-color-scheme: dark) { :root { --fg: #e6e8ec; --muted: #98a2b3; --bg: #11151c; --card: #1a202b; --line: #2c3442; } }
    * { box-sizing: border-box; }
    body { margin: 0; font: 15px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
    header { display: flex; flex-wrap: wrap; gap: .4em 1.2em; align-items: baseline; padding: .8em 1em; border-bottom: 1px solid var(--line); }
    header h1 { font-size: 1.15em; margin: 0; }
    .muted { color: var(--muted); }
    main { display: grid; gap: 1em; padding: 1em; grid-template-columns: repeat(auto-fit, minmax(min(100%, 30em), 1fr)); }
    section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .8em 1em; }
    h2 { font-size: 1.05em; margin: 0 0 .5em; word-break: break-all; }
    dl { display: grid; grid-template-columns: max-content 1fr; gap: .15em .9em; margin: 0; }
    dt { color: var(--muted); } dd { margin: 0; font-variant-numeric: tabular-nums; }
    .sky { display: flex; flex-wrap: wrap; gap: 1em; margin-top: .7em; }
    .sky svg.plot { width: min(100%, 15em); height: auto; }
    .bars { flex: 1 1 12em; display: flex; align-items: flex-end; gap: 2px; min-height: 8em; }
    .bar { flex: 1 1 0; min-width: 6px; display: flex; flex-direction: column; justify-content: flex-end; align-items: center; font-size: 9px; }
    .bar div { width: 100%; border-radius: 2px 2px 0 0; }
    .state-ok { color: var(--ok); } .state-warn { color: var(--warn); } .state-bad { color: var(--bad); }
    .meter { height: .5em; background: var(--line); border-radius: 4px; overflow: hidden; margin-top: .2em; }
    .meter div { height: 100%; background: var(--ok); }
    ul { margin: .3em 0 0; padding-left: 1.2em; }
    .legend span { margin-right: .8em; white-space: nowrap; }
    #alarm { background: var(--bad); color: #fff; padding: .7em 1em; font-weight: 600; }
    </style>
    </head>
    <body data-events="0">
    <header><h1>gpsbridge</h1><span id="version" class="muted"></span><span id="uptime"></span><span id="clients"></span>
    <span id="live" class="state-warn">connecting…</span></header>
    <div id="alarm" role="alert" hidden></div>
    <main id="main"></main>
    <script id="initial" type="application/json">
    """#

  private static let tail = #"""
    </script>
    <script>
    "use strict";
    const colours = { gps: "#2f6fde", glonass: "#d64545", galileo: "#1a9e77", beidou: "#c88a10", qzss: "#8e44ad", sbas: "#7f8c8d", navic: "#e67e22", unknown: "#999" };
    const svgNS = "http://www.w3.org/2000/svg";
    function el(tag, attributes, text) {
      const node = tag.startsWith("svg:") ? document.createElementNS(svgNS, tag.slice(4)) : document.createElement(tag);
      for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
      if (text !== undefined) node.textContent = text;
      return node;
    }
    function duration(seconds) {
      const s = Math.floor(seconds), d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60);
      return d ? `${d} d ${h} h` : h ? `${h} h ${m} min` : m ? `${m} min ${s % 60} s` : `${s} s`;
    }
    function fixed(value, digits, unit) { return value == null ? "–" : value.toFixed(digits) + (unit || ""); }
    function ms(seconds) { return seconds == null ? "–" : (seconds * 1000).toFixed(1) + " ms"; }
    function list(pairs) {
      const dl = el("dl");
      for (const [name, value, cls] of pairs) {
        dl.append(el("dt", {}, name));
        const dd = el("dd", cls ? { class: cls } : {}, value);
        dl.append(dd);
      }
      return dl;
    }
    function skyPlot(satellites) {
      const svg = el("svg:svg", { viewBox: "-116 -112 232 226", class: "plot", role: "img", "aria-label": "sky plot" });
      for (const elevation of [0, 30, 60]) {
        svg.append(el("svg:circle", { r: 100 - elevation * 100 / 90, fill: "none", stroke: "currentColor", "stroke-opacity": .25 }));
      }
      svg.append(el("svg:line", { x1: -100, y1: 0, x2: 100, y2: 0, stroke: "currentColor", "stroke-opacity": .15 }));
      svg.append(el("svg:line", { x1: 0, y1: -100, x2: 0, y2: 100, stroke: "currentColor", "stroke-opacity": .15 }));
      for (const [label, x, y] of [["N", 0, -102], ["E", 104, 4], ["S", 0, 110], ["W", -110, 4]]) {
        svg.append(el("svg:text", { x, y, "font-size": 9, "text-anchor": "middle", fill: "currentColor" }, label));
      }
      for (const sat of satellites) {
        if (sat.elevation == null || sat.azimuth == null) continue;
        const r = 100 - Math.max(0, sat.elevation) * 100 / 90, a = sat.azimuth * Math.PI / 180;
        const colour = colours[sat.constellation] || colours.unknown;
        const g = el("svg:g", { class: "sat", "data-prn": sat.prn, "data-constellation": sat.constellation, "data-used": sat.used });
        g.append(el("svg:circle", { cx: (r * Math.sin(a)).toFixed(1), cy: (-r * Math.cos(a)).toFixed(1), r: 7,
          fill: sat.used ? colour : "none", stroke: colour, "stroke-width": 2 }));
        g.append(el("svg:text", { x: (r * Math.sin(a)).toFixed(1), y: (-r * Math.cos(a) + 3).toFixed(1), "font-size": 7,
          "text-anchor": "middle", fill: sat.used ? "#fff" : "currentColor" }, String(sat.prn)));
        g.append(el("svg:title", {}, `${sat.constellation} ${sat.prn}: elevation ${sat.elevation}°, azimuth ${sat.azimuth}°, ${sat.snr ?? "–"} dB-Hz${sat.used ? ", used" : ""}`));
        svg.append(g);
      }
      return svg;
    }
    function signalBars(satellites) {
      const bars = el("div", { class: "bars", "aria-label": "signal strength" });
      for (const sat of satellites.slice().sort((a, b) => (b.snr ?? 0) - (a.snr ?? 0))) {
        const colour = colours[sat.constellation] || colours.unknown;
        const bar = el("div", { class: "bar", title: `${sat.constellation} ${sat.prn}: ${sat.snr ?? "–"} dB-Hz` });
        bar.append(el("span", {}, sat.snr ?? ""));
        bar.append(el("div", { style: `height:${Math.max(2, (sat.snr ?? 0) * 1.6)}px;background:${sat.used ? colour : "transparent"};border:2px solid ${colour}` }));
        bar.append(el("span", {}, String(sat.prn)));
        bars.append(bar);
      }
      return bars;
    }
    function receiverCard(receiver, index) {
      const section = el("section", { class: "receiver", "data-device": receiver.device });
      section.append(el("h2", {}, receiver.device));
      const fix = receiver.fix || {};
      const position = fix.latitude == null ? "no position" :
        `${fix.latitude.toFixed(6)}, ${fix.longitude.toFixed(6)}` + (fix.horizontalAccuracy == null ? "" : ` ± ${fix.horizontalAccuracy.toFixed(1)} m`);
      const stateClass = receiver.state === "reading" ? "state-ok" : "state-warn";
      const age = receiver.lastEpochAge;
      const ageClass = age == null ? "" : age > 5 ? "state-bad" : age > 2 ? "state-warn" : "state-ok";
      section.append(list([
        ["state", receiver.state, stateClass],
        ["link", `${receiver.protocols}` + (receiver.baud ? ` at ${receiver.baud} baud` : "") + (receiver.rate ? `, ${receiver.rate} Hz` : "")],
        ["fix", fix.mode ? `${fix.mode} ${fix.quality}` : "none yet", fix.mode === "3D" || fix.mode === "2D" ? "state-ok" : "state-warn"],
        ["position", position],
        ["time", fix.time ? fix.time.replace("T", " ").replace(/(\.\d+)?Z$/, " UTC") : "no date yet"],
        ["altitude", fixed(fix.altitude, 1, " m")],
        ["speed", fixed(fix.speed, 2, " m/s") + (fix.course == null ? "" : `, course ${fix.course.toFixed(0)}°`)],
        ["satellites", `${fix.satellitesUsed ?? receiver.satellites.filter(s => s.used).length} used of ${receiver.satellites.length} seen`],
        ["last epoch", age == null ? "none yet" : `${age.toFixed(1)} s ago`, ageClass],
        ["epochs", String(receiver.epochs)],
      ].concat(receiver.integrity ? [["signals", signals(receiver.integrity),
        receiver.integrity.alarms.length ? "state-bad" : (receiver.integrity.warnings || []).length ? "state-warn" : "state-ok"]] : [])));
      section.querySelector("dd:nth-of-type(4)").classList.add("position");
      section.querySelector(".position").dataset.latitude = fix.latitude ?? "";
      section.querySelector(".position").dataset.longitude = fix.longitude ?? "";
      section.querySelector("dd:nth-of-type(5)").classList.add("receiver-time");
      if (receiver.bytesPerEpoch != null && receiver.linkBytesPerEpoch) {
        const share = Math.min(1, receiver.bytesPerEpoch / receiver.linkBytesPerEpoch);
        const load = el("div", {}, `${receiver.bytesPerEpoch.toFixed(0)} bytes an epoch of the ${receiver.linkBytesPerEpoch.toFixed(0)} the line carries (${(share * 100).toFixed(0)} %)`);
        const meter = el("div", { class: "meter" });
        meter.append(el("div", { style: `width:${(share * 100).toFixed(1)}%;background:${share > .9 ? "var(--bad)" : share > .7 ? "var(--warn)" : "var(--ok)"}` }));
        load.append(meter);
        section.append(load);
      }
      const sky = el("div", { class: "sky" });
      sky.append(skyPlot(receiver.satellites));
      sky.append(signalBars(receiver.satellites));
      section.append(sky);
      const legend = el("div", { class: "legend muted" });
      for (const name of [...new Set(receiver.satellites.map(s => s.constellation))]) {
        legend.append(el("span", { style: `color:${colours[name] || colours.unknown}` }, `● ${name}`));
      }
      legend.append(el("span", {}, "filled: used"));
      section.append(legend);
      const rejects = Object.entries(receiver.rejects);
      section.append(el("div", { class: "muted" }, rejects.length ? "thrown away: " + rejects.map(([r, n]) => `${n} ${r}`).join(", ") : "nothing thrown away"));
      return section;
    }
    function signals(integrity) {
      const said = integrity.alarms.concat(integrity.warnings || []);
      if (said.length) return said.join(", ");
      return `jamming ${integrity.jamming}, spoofing ${integrity.spoofing}, antenna ${integrity.antenna}` +
        (integrity.jammingIndicator == null ? "" : `, interference ${integrity.jammingIndicator}/255`);
    }
    function timeCard(status) {
      const section = el("section", { class: "time" });
      section.append(el("h2", {}, "Time service"));
      for (const feed of status.timeService) {
        section.append(el("h3", {}, feed.device));
        section.append(list([
          ["feeding", feed.feeding ? "yes" : "held back" + (feed.notice ? `: ${feed.notice}` : ""), feed.feeding ? "state-ok" : "state-warn"],
          ["offset", ms(feed.offset)], ["jitter", ms(feed.jitter)],
          ["samples", `${feed.samples} measured` + (feed.sent == null ? "" : `, ${feed.sent} sent, ${feed.dropped} dropped`)],
        ]));
      }
      if (status.chrony) {
        section.append(el("h3", {}, "What chrony makes of it"));
        if (status.chrony.error) section.append(el("p", { class: "state-bad" }, status.chrony.error));
        for (const clock of status.chrony.referenceClocks) {
          section.append(list([[clock.name, `${clock.state}, reach ${clock.reach.toString(8)}` + (clock.offset == null ? "" : `, offset ${ms(clock.offset)}`),
            clock.state === "selected" || clock.state === "combined" ? "state-ok" : "state-warn"]]));
        }
        const findings = el("ul");
        for (const finding of status.chrony.findings) findings.append(el("li", {}, finding));
        section.append(findings);
      }
      return section;
    }
    function correctionsCard(stream) {
      const section = el("section", { class: "corrections", "data-device": stream.device });
      section.append(el("h2", {}, "Corrections for " + stream.device));
      const types = Object.entries(stream.messageTypes).map(([type, count]) => `${type} ×${count}`).join(", ");
      const rejects = Object.entries(stream.rejects).map(([reason, count]) => `${count} ${reason}`).join(", ");
      const age = stream.lastFrameAge;
      section.append(list([
        ["source", stream.source],
        ["state", stream.state, stream.connected ? "state-ok" : "state-warn"],
        ["rate", `${stream.bytesPerSecond.toFixed(0)} bytes/s`],
        ["last frame", age == null ? "none yet" : `${age.toFixed(1)} s ago`, age == null || age > 10 ? "state-warn" : "state-ok"],
        ["station", stream.stationID == null ? "not yet heard" : `${stream.stationID}` +
          (stream.stationDistance == null ? "" : `, ${(stream.stationDistance / 1000).toFixed(1)} km away`),
          stream.stationDistance > 30000 ? "state-warn" : ""],
        ["messages", types || "none yet"],
        ["forwarded", `${stream.forwarded} frames, ${stream.dropped} dropped, ${stream.ggaSent} GGA sent up`],
        ["thrown away", rejects || "nothing"],
      ]));
      return section;
    }
    function render(status) {
      // The header names the program already: only the version follows it.
      document.getElementById("version").textContent = status.version.replace(/^gpsbridge /, "");
      document.getElementById("uptime").textContent = "up " + duration(status.uptime);
      document.getElementById("clients").textContent =
        `${status.gpsd.clients} gpsd client${status.gpsd.clients === 1 ? "" : "s"} · ${status.http.streams} page${status.http.streams === 1 ? "" : "s"} open`;
      // A receiver that says it is spoofed or jammed, or its antenna is broken: said at the top.
      const alarm = document.getElementById("alarm");
      const alarms = status.receivers.filter(r => r.integrity && r.integrity.alarms.length)
        .map(r => `${r.device}: ${r.integrity.alarms.join(", ")}`);
      alarm.hidden = !alarms.length;
      alarm.textContent = alarms.length ? "⚠ Interference: " + alarms.join("; ") : "";
      const main = document.getElementById("main");
      const cards = status.receivers.map(receiverCard);
      if (!cards.length) cards.push(el("section", {}, "No receiver yet."));
      if (status.timeService.length || status.chrony) cards.push(timeCard(status));
      for (const stream of status.corrections || []) cards.push(correctionsCard(stream));
      main.replaceChildren(...cards);
    }
    render(JSON.parse(document.getElementById("initial").textContent));
    const live = document.getElementById("live");
    const events = new EventSource("events");
    events.onopen = () => { live.textContent = "live"; live.className = "state-ok"; };
    events.onerror = () => { live.textContent = "reconnecting…"; live.className = "state-warn"; };
    events.onmessage = (event) => {
      render(JSON.parse(event.data));
      document.body.dataset.events = String(Number(document.body.dataset.events) + 1);
    };
    </script>
    </body>
    </html>

    """#
}
