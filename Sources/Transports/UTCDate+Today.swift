import NMEA
import Plumbing

extension UTCDate {
  /// Today's date in UTC, from the system clock: the date a live receiver's GGA-only fixes
  /// and an undated capture's fixes are placed on. The one place gpsbridge reads the calendar.
  package static var today: UTCDate {
    UTCDate(daysSince1970: Int64(time(nil)) / 86_400)
  }
}
