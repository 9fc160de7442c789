/// Terminal settings of a serial device, wrapping `termios(3)`.
package struct TerminalAttributes: Sendable {
  var raw: termios

  /// The descriptor's current settings. The corresponding C function is `tcgetattr(3)`.
  package static func get(_ descriptor: FileDescriptor) throws(Errno) -> TerminalAttributes {
    var attributes = termios()
    _ = try valueOrErrno { tcgetattr(descriptor.rawValue, &attributes) }
    return TerminalAttributes(raw: attributes)
  }

  /// Applies the settings now. The corresponding C function is `tcsetattr(3)`.
  package func apply(to descriptor: FileDescriptor) throws(Errno) {
    var attributes = raw
    _ = try valueOrErrno { tcsetattr(descriptor.rawValue, TCSANOW, &attributes) }
  }

  /// Raw 8N1: no echo, no line editing or signals, no CR/LF translation, 8 data bits, no
  /// parity, one stop bit, no hardware or software flow control, modem lines ignored
  /// (`CLOCAL`) and the receiver enabled (`CREAD`).
  package mutating func makeRaw8N1() {
    cfmakeraw(&raw)
    raw.c_cflag &= ~(tcflag_t(PARENB) | tcflag_t(CSTOPB) | tcflag_t(CSIZE) | tcflag_t(CRTSCTS))
    raw.c_cflag |= tcflag_t(CS8) | tcflag_t(CLOCAL) | tcflag_t(CREAD)
    raw.c_iflag &= ~(tcflag_t(IXON) | tcflag_t(IXOFF) | tcflag_t(IXANY))
    withUnsafeMutableBytes(of: &raw.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
  }

  /// Sets input and output speed. Returns false for a rate termios does not know.
  package mutating func setSpeed(_ rate: Int) -> Bool {
    guard let speed = Self.speed(for: rate) else { return false }
    cfsetispeed(&raw, speed)
    cfsetospeed(&raw, speed)
    return true
  }

  /// The input speed in bits per second, when termios names one gpsbridge knows. On a
  /// pseudo-terminal's master side this is what the program on the other side set.
  package var inputSpeed: Int? {
    var attributes = raw
    let speed = cfgetispeed(&attributes)
    return terminalSpeeds.first { $0.1 == speed }?.0
  }

  static func speed(for rate: Int) -> speed_t? {
    terminalSpeeds.first { $0.0 == rate }?.1
  }
}

extension FileDescriptor {
  /// Takes exclusive use of a terminal: further opens fail with `EBUSY` (except for root).
  /// The corresponding C call is `ioctl(fd, TIOCEXCL)`.
  package func setExclusive(_ exclusive: Bool) throws(Errno) {
    _ = try valueOrErrno { ioctl(rawValue, UInt(exclusive ? TIOCEXCL : TIOCNXCL)) }
  }

  /// Takes an advisory lock without waiting, so two gpsbridge processes (even as root, whom
  /// `TIOCEXCL` does not stop) never share a device. Fails with `EWOULDBLOCK` when taken.
  /// The corresponding C function is `flock(2)`.
  package func lockExclusively() throws(Errno) {
    _ = try valueOrErrno { flock(rawValue, LOCK_EX | LOCK_NB) }
  }

  /// Gives the lock of ``lockExclusively()`` back. Closing alone is not enough: the lock
  /// belongs to the open file, which a child process of this one shares from its fork until
  /// its exec closes it, so a port closed in that moment would stay locked a while longer.
  /// The corresponding C function is `flock(2)`.
  package func unlock() throws(Errno) {
    _ = try valueOrErrno { flock(rawValue, LOCK_UN) }
  }

  /// Waits until every byte written has been sent on the line. The corresponding C function is
  /// `tcdrain(3)`.
  package func drainOutput() throws(Errno) {
    _ = try valueOrErrno { tcdrain(rawValue) }
  }

  /// Discards bytes received but not read. The corresponding C function is `tcflush(3)`.
  package func discardInput() throws(Errno) {
    _ = try valueOrErrno { tcflush(rawValue, TCIFLUSH) }
  }
}
