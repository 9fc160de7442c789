// The C library, imported in this one place for the whole package: Glibc on most Linux
// systems, Musl with the static Linux SDK, Darwin on macOS. Everything else imports Plumbing.
#if canImport(Glibc)
  @_exported import Glibc
#elseif canImport(Musl)
  @_exported import Musl
#elseif canImport(Darwin)
  @_exported import Darwin
#else
  #error("gpsbridge needs a C library: Glibc, Musl or Darwin.")
#endif
