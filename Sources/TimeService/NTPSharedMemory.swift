import Plumbing
import Synchronization

/// ntpd's shared-memory reference clock (driver 28, `refclock SHM` in chrony): one System V
/// segment per unit, key `0x4E545030 + unit` ("NTP0"), holding `struct shmTime`, written in
/// mode 1 — the writer bumps `count` before and after the fields, and readers that see it
/// change while they read throw the sample away.
///
/// Units 0 and 1 are made readable and writable by their owner only (0600), as ntpd and gpsd
/// make them: only a process of root's (or the owner's) may feed the system clock through
/// them. Units from 2 are 0666, for a gpsbridge that does not run as root; any local user can
/// write those, so a clock fed from them trusts every local user.
package final class NTPSharedMemory: @unchecked Sendable {
  package let unit: Int
  private let memory: UnsafeMutableRawPointer

  /// The segment's key for `unit`.
  package static func key(unit: Int) -> key_t { key_t(0x4E54_5030 + unit) }
  /// The segment's permissions for `unit`.
  package static func permissions(unit: Int) -> Int32 { unit < 2 ? 0o600 : 0o666 }
  /// `sizeof(struct shmTime)` on a 64-bit Linux.
  static let size = 96

  /// Why a segment cannot be used.
  package enum Failure: Error, Equatable {
    /// `shmget` or `shmat` failed: `EACCES` when the segment belongs to someone else (a unit
    /// below 2 made by root), `EINVAL` when one of another size has the key.
    case system(Errno)
    /// The segment exists and was made by another user (neither root nor this process's): a
    /// segment anyone may have made is not fed a clock's time.
    case ownedByAnotherUser(uid: UInt32)
    /// A private unit (0 or 1) exists with permissions that let other users write it (mode
    /// 0666, say): whoever can write it can set the clock, so it is not fed.
    case writableByOthers(mode: UInt32)
  }

  /// Attaches the segment of `unit`, making it if need be. `key` is the segment's key: the
  /// unit's own, or in tests one that no ntpd or gpsd on the machine uses.
  package init(unit: Int, key: key_t? = nil) throws(Failure) {
    precondition(unit >= 0)
    self.unit = unit
    let id: Int32
    do {
      id = try valueOrErrno { shmget(key ?? Self.key(unit: unit), Self.size, IPC_CREAT | Self.permissions(unit: unit)) }
    } catch {
      throw .system(error)
    }
    var status = shmid_ds()
    if shmctl(id, IPC_STAT, &status) == 0, status.shm_perm.cuid != 0, status.shm_perm.cuid != geteuid() {
      throw .ownedByAnotherUser(uid: status.shm_perm.cuid)
    }
    let mode = UInt32(status.shm_perm.mode) & 0o777
    if unit < 2, mode & 0o022 != 0 { throw .writableByOthers(mode: mode) }
    guard let pointer = shmat(id, nil, 0), Int(bitPattern: pointer) != -1 else { throw .system(Errno.current) }
    memory = pointer
  }

  deinit { shmdt(memory) }

  /// Offsets of `struct shmTime`'s fields (see ntpd's `refclock_shm.c` and gpsd's `ntpshm.h`).
  private enum Field {
    static let mode = 0, count = 4, clockSeconds = 8, clockMicroseconds = 16
    static let receiveSeconds = 24, receiveMicroseconds = 32, leap = 36, precision = 40
    static let valid = 48, clockNanoseconds = 52, receiveNanoseconds = 56
  }

  /// Writes `sample`: its reference time as the clock time stamp, its system time as the
  /// receive time stamp. `precision` is log₂ of the source's jitter in seconds: −1 for NMEA
  /// (about 0.5 s, as gpsd says), −20 for PPS (about a microsecond).
  package func write(_ sample: TimeSample, precision: Int32) {
    let reference = sample.reference.nanosecondsSince1970
    let system = sample.system.nanosecondsSince1970
    store(Int32(1), at: Field.mode)
    store(Int32(0), at: Field.valid)
    store(load(Int32.self, at: Field.count) &+ 1, at: Field.count)
    atomicMemoryFence(ordering: .sequentiallyConsistent)
    store(Int64(reference / 1_000_000_000), at: Field.clockSeconds)
    store(Int32(reference % 1_000_000_000 / 1000), at: Field.clockMicroseconds)
    store(UInt32(reference % 1_000_000_000), at: Field.clockNanoseconds)
    store(Int64(system / 1_000_000_000), at: Field.receiveSeconds)
    store(Int32(system % 1_000_000_000 / 1000), at: Field.receiveMicroseconds)
    store(UInt32(system % 1_000_000_000), at: Field.receiveNanoseconds)
    store(Int32(0), at: Field.leap)
    store(precision, at: Field.precision)
    atomicMemoryFence(ordering: .sequentiallyConsistent)
    store(load(Int32.self, at: Field.count) &+ 1, at: Field.count)
    store(Int32(1), at: Field.valid)
  }

  /// The segment's fields as a reader sees them: for tests.
  package var contents: (mode: Int32, count: Int32, clock: Int64, receive: Int64, valid: Int32, precision: Int32) {
    let clock = load(Int64.self, at: Field.clockSeconds) * 1_000_000_000 + Int64(load(UInt32.self, at: Field.clockNanoseconds))
    let receive = load(Int64.self, at: Field.receiveSeconds) * 1_000_000_000 + Int64(load(UInt32.self, at: Field.receiveNanoseconds))
    return (
      load(Int32.self, at: Field.mode), load(Int32.self, at: Field.count), clock, receive, load(Int32.self, at: Field.valid),
      load(Int32.self, at: Field.precision)
    )
  }

  /// Removes the segment once the last process detaches (for tests).
  package func remove() {
    let id = shmget(Self.key(unit: unit), 0, 0)
    if id >= 0 { shmctl(id, IPC_RMID, nil) }
  }

  private func store<Value: FixedWidthInteger>(_ value: Value, at offset: Int) {
    (memory + offset).assumingMemoryBound(to: Value.self).pointee = value
  }

  private func load<Value: FixedWidthInteger>(_ type: Value.Type, at offset: Int) -> Value {
    (memory + offset).assumingMemoryBound(to: Value.self).pointee
  }
}
