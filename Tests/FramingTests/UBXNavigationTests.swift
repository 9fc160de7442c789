import Foundation
import Framing
import TestHelpers
import Testing

/// u-blox's navigation messages as pyubx2, an independent implementation, builds them, read
/// by gpsbridge to the same values.
@Suite(.enabled(if: PythonModules.available(["pyubx2"]), "pyubx2 is not installed (pip install pyubx2)"))
struct UBXNavigationTests {
  /// NAV-PVT, NAV-SAT, NAV-DOP and NAV-EOE of one epoch, built by pyubx2.
  static func epochFromPyubx2() async throws -> [UBXFrame] {
    let script = """
      from pyubx2 import UBXMessage, GET
      t = 381319000
      print(UBXMessage('NAV', 'NAV-PVT', GET, iTOW=t, year=2024, month=5, day=1, hour=10, min=15, second=19, validDate=1,
          validTime=1, fullyResolved=1, nano=-1200, fixType=3, gnssFixOk=1, numSV=12, lon=8.5417, lat=47.3769,
          height=455300, hMSL=408000, hAcc=1500, vAcc=2500, gSpeed=12000, headMot=90.5, pDOP=1.5).serialize().hex())
      print(UBXMessage('NAV', 'NAV-SAT', GET, iTOW=t, version=1, numSvs=2, gnssId_01=0, svId_01=5, cno_01=42, elev_01=45,
          azim_01=120, svUsed_01=1, gnssId_02=6, svId_02=3, cno_02=30, elev_02=20, azim_02=300, svUsed_02=0).serialize().hex())
      print(UBXMessage('NAV', 'NAV-DOP', GET, iTOW=t, gDOP=2.0, pDOP=1.5, tDOP=1.1, vDOP=1.3, hDOP=0.8, nDOP=0.6,
          eDOP=0.5).serialize().hex())
      print(UBXMessage('NAV', 'NAV-EOE', GET, iTOW=t).serialize().hex())
      """
    let lines = try await PythonModules.run(script, arguments: []).split(separator: "\n")
    var frames: [UBXFrame] = []
    var splitter = StreamSplitter()
    for line in lines {
      let bytes = stride(from: 0, to: line.count, by: 2).compactMap { UInt8(line.dropFirst($0).prefix(2), radix: 16) }
      bytes.withUnsafeBytes { splitter.split($0, text: { _ in }, frame: { if case .ubx(let frame) = $0 { frames.append(frame) } }) }
    }
    return frames
  }

  @Test func pyubx2sNavigationMessagesReadToTheirValues() async throws {
    let frames = try await Self.epochFromPyubx2()
    #expect(frames.count == 4)
    let pvt = try #require(frames.lazy.compactMap(NavigationSolution.init).first)
    #expect(pvt.timeOfWeek == 381_319_000 && (pvt.year, pvt.month, pvt.day) == (2024, 5, 1))
    #expect((pvt.hour, pvt.minute, pvt.second, pvt.nanosecond) == (10, 15, 19, -1200))
    #expect(pvt.dateIsValid && pvt.timeIsValid && pvt.fullyResolved && pvt.fixIsOK && pvt.fixType == 3)
    #expect(abs(pvt.latitude - 47.3769) < 1e-9 && abs(pvt.longitude - 8.5417) < 1e-9)
    #expect(pvt.heightAboveSeaLevel == 408 && pvt.heightAboveEllipsoid == 455.3)
    #expect(pvt.horizontalAccuracy == 1.5 && pvt.verticalAccuracy == 2.5 && pvt.groundSpeed == 12)
    #expect(abs(pvt.headingOfMotion - 90.5) < 1e-9 && abs(pvt.pdop - 1.5) < 1e-9 && pvt.satellitesUsed == 12)
    let sat = try #require(frames.lazy.compactMap(SatellitesInView.init).first)
    #expect(
      sat.satellites == [
        .init(system: 0, number: 5, signalStrength: 42, elevation: 45, azimuth: 120, isUsed: true),
        .init(system: 6, number: 3, signalStrength: 30, elevation: 20, azimuth: 300, isUsed: false),
      ])
    let dop = try #require(frames.lazy.compactMap(DilutionOfPrecision.init).first)
    #expect(abs(dop.hdop - 0.8) < 1e-9 && abs(dop.vdop - 1.3) < 1e-9)
    #expect(frames.lazy.compactMap(EndOfEpoch.init).first?.timeOfWeek == 381_319_000)
  }
}
