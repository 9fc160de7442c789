import GPSLocation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

extension DeviceDiscovery {
  /// Where the command line looks for receivers: `/dev` and `/sys`, unless
  /// `GPSBRIDGE_DEV_ROOT` and `GPSBRIDGE_SYSFS_ROOT` name other trees (a container with the
  /// host's device tree mounted elsewhere; the tests' scratch machines).
  static var ofThisMachine: DeviceDiscovery {
    func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
    return DeviceDiscovery(sysfsRoot: variable("GPSBRIDGE_SYSFS_ROOT") ?? "/sys", devRoot: variable("GPSBRIDGE_DEV_ROOT") ?? "/dev")
  }
}
