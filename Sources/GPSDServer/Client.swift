import GPSD
import Plumbing

/// What the gpsd server keeps of one client: what it asked to watch, and its half-read
/// requests. The connection, its queue and its slot are the ``ClientRegistry``'s.
struct GPSDSession {
  var watch = GPSDWatch()
  var requests = GPSDRequestReader()
}

/// One connected gpsd client, on the server's queue.
typealias Client = ClientRegistry<GPSDSession>.Client

extension ClientRegistry<GPSDSession>.Client {
  var watch: GPSDWatch {
    get { session.watch }
    set { session.watch = newValue }
  }
}
