import Dispatch
import Plumbing

/// POSTs over http and https through libcurl's `multi_socket` interface, driven from Dispatch:
/// libcurl says which sockets to watch and when its timer is due, a read or write source (or a
/// timer source) on the poster's one serial queue tells it when one is ready, and no thread
/// ever waits in `poll`. Every call into libcurl, and every callback from it, runs on that
/// queue.
///
/// Bounded whatever the other side does: each request has an overall deadline (connect,
/// headers, body), and an answer's body is never kept: a 2xx answer ends the transfer at its
/// first body byte, any other after 4 KiB. A socket libcurl is done with is closed only after
/// Dispatch has let go of it, so a later socket that gets its number is watched afresh.
final class HTTPPoster: @unchecked Sendable {
  /// One POST.
  struct Request: Sendable {
    var url: String
    var body: [UInt8]
    /// Header lines, `Name: value`.
    var headers: [String]
    var userAgent: String
    /// The whole exchange's deadline.
    var timeout: Duration
    /// A file of CA certificates to trust instead of the system's (a private CA).
    var certificateAuthorities: String?
  }

  /// How a POST ended.
  enum Outcome: Hashable, Sendable {
    /// The server answered with this HTTP status.
    case answered(status: Int)
    /// No answer: libcurl's result code and what it means.
    case failed(code: Int32, reason: String)
    /// Not sent: libcurl could not be loaded (it will not be, later either), and why.
    case unavailable(String)
    /// Given up by the caller (its task was cancelled).
    case cancelled
  }

  /// The most of a non-2xx answer's body read before the transfer ends (it is not kept).
  static let bodyLimit = 4096

  /// libcurl, loaded at the first post (on `queue`).
  private var curl: LibCURL!
  private let queue = DispatchQueue(label: "gpsbridge.webhook")
  /// Touched on `queue` only, like everything below.
  private var multi: LibCURL.Handle?
  private var timer: (any DispatchSourceTimer)?
  private var sockets: [Int32: Watch] = [:]
  private var transfers: [UInt: Transfer] = [:]
  /// Numbers the posts, so that a cancelled one is found; taken from any thread.
  private let nextID = Locked(0)

  /// The sources watching one socket, made as libcurl first asks for each direction.
  private final class Watch {
    /// One direction's source: made when first wanted, suspended while not.
    struct Direction {
      var source: (any DispatchSourceProtocol)?
      var resumed = false

      mutating func want(_ wanted: Bool, make: () -> any DispatchSourceProtocol) {
        if wanted, source == nil {
          let made = make()
          made.activate()
          source = made
          resumed = true
        } else if let source, wanted != resumed {
          if wanted { source.resume() } else { source.suspend() }
          resumed = wanted
        }
      }

      /// Cancels the source, resumed first (a suspended one never finishes cancelling);
      /// whether there was one.
      mutating func cancel() -> Bool {
        guard let source else { return false }
        if !resumed { source.resume() }
        resumed = true
        source.cancel()
        return true
      }
    }
    var read = Direction()
    var write = Direction()
    /// Sources cancelled and not yet let go; the socket is closed once this is back to 0.
    var cancelling = 0
    var closeWhenLetGo = false
  }

  /// One POST under way.
  private final class Transfer {
    let id: Int
    let easy: LibCURL.Handle
    let headers: LibCURL.Handle?
    let done: @Sendable (Outcome) -> Void
    var bodyBytes = 0
    init(id: Int, easy: LibCURL.Handle, headers: LibCURL.Handle?, done: @escaping @Sendable (Outcome) -> Void) {
      self.id = id
      self.easy = easy
      self.headers = headers
      self.done = done
    }
  }

  /// A poster over the system's libcurl, which is loaded at the first post: a server with a
  /// webhook and nothing to post yet carries none of it.
  /// - Throws: ``LibCURL/Unavailable`` when the library is missing.
  init() throws(LibCURL.Unavailable) {
    guard LibCURL.isInstalled else { throw LibCURL.missing }
  }

  /// On `queue`: libcurl loaded and its multi handle made, the first time; whether it could be.
  private func loaded() -> Result<Void, LibCURL.Unavailable> {
    if curl != nil { return .success(()) }
    switch LibCURL.shared {
    case .failure(let unavailable): return .failure(unavailable)
    case .success(let library): curl = library
    }
    multi = curl.multiInit()
    let me = Unmanaged.passUnretained(self).toOpaque()
    curl.setMulti(multi, .socketFunction, unsafeBitCast(socketCallback, to: UnsafeRawPointer.self))
    curl.setMulti(multi, .socketData, me)
    curl.setMulti(multi, .timerFunction, unsafeBitCast(timerCallback, to: UnsafeRawPointer.self))
    curl.setMulti(multi, .timerData, me)
    return .success(())
  }

  /// The sources let go (Dispatch does not allow a suspended one to be released). libcurl's
  /// handle and the connections it keeps for reuse go with the process: a sender lives as long
  /// as the program that made it.
  deinit {
    timer?.cancel()
    for watch in sockets.values {
      _ = watch.read.cancel()
      _ = watch.write.cancel()
    }
  }

  /// POSTs `request` and returns how it ended. Cancelling the task ends the exchange.
  func post(_ request: Request) async -> Outcome {
    let id = nextID.withLock { id in
      defer { id += 1 }
      return id
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
        queue.async { [self] in start(request, id: id) { continuation.resume(returning: $0) } }
      }
    } onCancel: {
      queue.async { [self] in
        guard let (key, _) = transfers.first(where: { $0.value.id == id }) else { return }
        end(key, .cancelled)
      }
    }
  }

  /// On `queue`: the easy handle set up and added; libcurl then asks for sockets and a timer.
  private func start(_ request: Request, id: Int, done: @escaping @Sendable (Outcome) -> Void) {
    if case .failure(let unavailable) = loaded() { return done(.unavailable(unavailable.description)) }
    guard let easy = curl.easyInit() else { return done(.failed(code: -1, reason: "libcurl could not start a request")) }
    var headers: LibCURL.Handle?
    for line in request.headers + ["Expect:"] { headers = curl.slistAppend(headers, line) }
    curl.set(easy, .url, request.url)
    curl.set(easy, .post, 1)
    curl.set(easy, .postFieldSize, request.body.count)
    request.body.withUnsafeBytes { _ = curl.set(easy, .copyPostFields, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)) }
    curl.set(easy, .httpHeader, UnsafeRawPointer(headers))
    curl.set(easy, .userAgent, request.userAgent)
    curl.set(easy, .noSignal, 1)
    curl.set(easy, .protocols, LibCURL.protocolsHTTP)
    curl.set(easy, .redirectProtocols, LibCURL.protocolsHTTP)
    // A 307 or 308 is followed with the same POST (Home Assistant behind a proxy), a few times.
    curl.set(easy, .followLocation, 1)
    curl.set(easy, .maxRedirects, 5)
    let milliseconds = max(1, Int(request.timeout / .milliseconds(1)))
    curl.set(easy, .timeoutMilliseconds, milliseconds)
    curl.set(easy, .connectTimeoutMilliseconds, milliseconds)
    if let authorities = request.certificateAuthorities { curl.set(easy, .caInfo, authorities) }
    let transfer = Transfer(id: id, easy: easy, headers: headers, done: done)
    let key = UInt(bitPattern: easy)
    transfers[key] = transfer
    curl.set(easy, .writeFunction, unsafeBitCast(writeCallback, to: UnsafeRawPointer.self))
    curl.set(easy, .writeData, Unmanaged.passUnretained(transfer).toOpaque())
    curl.set(easy, .closeSocketFunction, unsafeBitCast(closeSocketCallback, to: UnsafeRawPointer.self))
    curl.set(easy, .closeSocketData, Unmanaged.passUnretained(self).toOpaque())
    _ = curl.multiAddHandle(multi, easy)
  }

  /// On `queue`: the transfer taken off, its handle freed, and its caller told.
  private func end(_ key: UInt, _ outcome: Outcome) {
    guard let transfer = transfers.removeValue(forKey: key) else { return }
    _ = curl.multiRemoveHandle(multi, transfer.easy)
    curl.easyCleanup(transfer.easy)
    curl.slistFreeAll(transfer.headers)
    transfer.done(outcome)
  }

  /// On `queue`: libcurl told that `socket` is ready (or its timer is due), then every
  /// transfer it finished ended.
  private func act(on socket: Int32, _ events: Int32) {
    var running: Int32 = 0
    _ = curl.multiSocketAction(multi, socket, events, &running)
    var left: Int32 = 0
    while let message = curl.multiInfoRead(multi, &left) {
      // CURLMsg: the kind (an int), the easy handle at offset 8, the result code at 16.
      guard message.load(as: Int32.self) == LibCURL.messageDone else { continue }
      let easy = message.load(fromByteOffset: 8, as: UnsafeMutableRawPointer?.self)
      let result = message.load(fromByteOffset: 16, as: Int32.self)
      guard let easy else { continue }
      let key = UInt(bitPattern: easy)
      let status = curl.responseCode(easy)
      // A status line came: answered, whatever happened to the body (cut short on purpose).
      if status >= 100, result == LibCURL.ok || result == LibCURL.writeError {
        end(key, .answered(status: status))
      } else {
        end(key, .failed(code: result, reason: curl.describe(result)))
      }
    }
  }

  // MARK: What libcurl asks for, on `queue` (from inside a libcurl call)

  fileprivate func watch(_ socket: Int32, _ what: Int32) {
    guard what != LibCURL.pollRemove else {
      // Kept, paused: libcurl may reuse the connection, or close it (``closeSocket(_:)``).
      sockets[socket]?.read.want(false) { fatalError("a source is never made for a pause") }
      sockets[socket]?.write.want(false) { fatalError("a source is never made for a pause") }
      return
    }
    let watch = sockets[socket] ?? Watch()
    sockets[socket] = watch
    watch.read.want(what & LibCURL.pollIn != 0) {
      source(DispatchSource.makeReadSource(fileDescriptor: socket, queue: queue), for: socket, telling: LibCURL.selectIn)
    }
    watch.write.want(what & LibCURL.pollOut != 0) {
      source(DispatchSource.makeWriteSource(fileDescriptor: socket, queue: queue), for: socket, telling: LibCURL.selectOut)
    }
  }

  /// `source`, set to tell libcurl `events` on `socket`, and to note when Dispatch lets go of it.
  private func source(_ source: any DispatchSourceProtocol, for socket: Int32, telling events: Int32) -> any DispatchSourceProtocol {
    source.setEventHandler { [weak self] in self?.act(on: socket, events) }
    source.setCancelHandler { [weak self] in self?.letGo(socket) }
    return source
  }

  /// libcurl is done with `socket`: its sources cancelled, and the socket closed once Dispatch
  /// has let go of it (at once when none watched it).
  fileprivate func closeSocket(_ socket: Int32) {
    guard let watch = sockets[socket] else {
      _ = close(socket)
      return
    }
    if watch.read.cancel() { watch.cancelling += 1 }
    if watch.write.cancel() { watch.cancelling += 1 }
    watch.closeWhenLetGo = true
    if watch.cancelling == 0 {
      sockets[socket] = nil
      _ = close(socket)
    }
  }

  private func letGo(_ socket: Int32) {
    guard let watch = sockets[socket] else { return }
    watch.cancelling -= 1
    guard watch.cancelling == 0, watch.closeWhenLetGo else { return }
    sockets[socket] = nil
    _ = close(socket)
  }

  fileprivate func setTimer(_ milliseconds: Int) {
    timer?.cancel()
    timer = nil
    guard milliseconds >= 0 else { return }
    let source = DispatchSource.makeTimerSource(queue: queue)
    source.schedule(deadline: .now() + .milliseconds(milliseconds))
    source.setEventHandler { [weak self] in
      guard let self else { return }
      timer?.cancel()
      timer = nil
      act(on: LibCURL.socketTimeout, 0)
    }
    timer = source
    source.activate()
  }

  /// Whether the transfer with this write data should go on after `count` more body bytes.
  fileprivate static func takes(_ count: Int, for transfer: UnsafeMutableRawPointer) -> Bool {
    let transfer = Unmanaged<Transfer>.fromOpaque(transfer).takeUnretainedValue()
    transfer.bodyBytes += count
    guard let curl = try? LibCURL.shared.get() else { return false }
    let status = curl.responseCode(transfer.easy)
    return !(200..<300).contains(status) && transfer.bodyBytes <= bodyLimit
  }
}

private let socketCallback:
  @convention(c) (
    UnsafeMutableRawPointer?, Int32, Int32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?
  ) -> Int32 = { _, socket, what, poster, _ in
    guard let poster else { return -1 }
    Unmanaged<HTTPPoster>.fromOpaque(poster).takeUnretainedValue().watch(socket, what)
    return 0
  }

private let timerCallback: @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Int32 = {
  _, milliseconds, poster in
  guard let poster else { return -1 }
  Unmanaged<HTTPPoster>.fromOpaque(poster).takeUnretainedValue().setTimer(milliseconds)
  return 0
}

private let closeSocketCallback: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32 = { poster, socket in
  guard let poster else { return close(socket) }
  Unmanaged<HTTPPoster>.fromOpaque(poster).takeUnretainedValue().closeSocket(socket)
  return 0
}

/// The answer's body is counted, never kept; returning less than was given ends the transfer.
private let writeCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
  _, size, count, transfer in
  guard let transfer else { return 0 }
  return HTTPPoster.takes(size * count, for: transfer) ? size * count : 0
}
