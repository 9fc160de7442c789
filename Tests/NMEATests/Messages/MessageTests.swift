import NMEA
import Testing

@Suite struct MessageTests {
  @Test(arguments: [
    ("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", "GGA"),
    ("GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W", "RMC"),
    ("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1", "GSA"),
    ("GPGSV,1,1,00", "GSV"), ("GPVTG,054.7,T,034.4,M,005.5,N,010.2,K", "VTG"),
    ("GPGLL,4916.45,N,12311.12,W,225444,A", "GLL"), ("GPZDA,201530.00,04,07,2002,00,00", "ZDA"),
    ("GNGNS,122310.2,,,,,N,00,,,,,", "GNS"), ("GPGST,172814.0,,,,,,,", "GST"), ("HEHDT,1.0,T", "HDT"),
    ("GPTHS,1.0,A", "THS"), ("GPTXT,01,01,02,hello", "TXT"),
  ])
  func decodesEachSupportedType(_ body: String, _ type: String) throws {
    let sentence = try #require(Sentence(nmea(body)))
    #expect(sentence.type.description == type)
    let message = try Message(sentence)
    if case .unsupported = message { Issue.record("\(type) decoded as unsupported") }
  }

  @Test(arguments: [
    "PUBX,00,081350.00,4717.113210,N,00833.915187,E,546.589,G3,2.1,2.0,0.007,77.52,0.007,,0.92,1.19,0.77,9,0,0",
    "PGRME,15.0,M,45.0,M,25.0,M", "GPXTE,A,A,0.67,L,N", "!AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0",
  ])
  func keepsOtherSentencesRaw(_ line: String) throws {
    let text = line.hasPrefix("!") ? line + "*26\r\n" : nmea(line)
    let sentence = try #require(Sentence(text))
    guard case .unsupported(let raw) = try Message(sentence) else {
      Issue.record("\(line) should stay raw")
      return
    }
    #expect(raw.description == String(text.dropLast()))
  }

  @Test func proprietaryTalkerAndType() throws {
    let sentence = try #require(Sentence(nmea("PUBX,00,081350.00")))
    #expect(sentence.talker == .proprietary && sentence.type.description == "UBX")
  }
}
