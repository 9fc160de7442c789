// What a user of `import GPSLocation` sees besides the values made here: the interface, its
// models and engine, the transports' public types (BaudRate, Capture, ReplaySpeed…), the
// sources' errors and authorization, and NMEA's `Fix`.
@_exported import Framing
@_exported import GPSLocationEngine
@_exported import NMEA
@_exported import SourceStatus
@_exported import Transports
