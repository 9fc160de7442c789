import CURLCalls
import Plumbing

/// The system's libcurl, loaded the first time a webhook is posted, never linked: a process
/// that POSTs no webhook maps none of it (nor OpenSSL, Kerberos, libssh2…: 8.5 MB of memory
/// once loaded and started), and a box without it still runs everything else. `--webhook`
/// finds it at start, without loading it, and says what to install when it is missing.
///
/// Only the calls the webhook sender makes are looked up. The variadic ones (`setopt`,
/// `getinfo`) go through `CURLCalls`, which passes their one argument with C's calling
/// convention; the constants are libcurl's stable ABI values (`curl/curl.h`, `curl/multi.h`).
struct LibCURL: @unchecked Sendable {
  typealias Handle = UnsafeMutableRawPointer

  let easyInit: @convention(c) () -> Handle?
  let easyCleanup: @convention(c) (Handle?) -> Void
  let easyStrerror: @convention(c) (Int32) -> UnsafePointer<CChar>?
  let multiInit: @convention(c) () -> Handle?
  let multiAddHandle: @convention(c) (Handle?, Handle?) -> Int32
  let multiRemoveHandle: @convention(c) (Handle?, Handle?) -> Int32
  let multiSocketAction: @convention(c) (Handle?, Int32, Int32, UnsafeMutablePointer<Int32>?) -> Int32
  let multiInfoRead: @convention(c) (Handle?, UnsafeMutablePointer<Int32>?) -> UnsafeMutableRawPointer?
  let slistAppend: @convention(c) (Handle?, UnsafePointer<CChar>?) -> Handle?
  let slistFreeAll: @convention(c) (Handle?) -> Void
  private let easySetopt: UnsafeMutableRawPointer
  private let easyGetinfo: UnsafeMutableRawPointer
  private let multiSetopt: UnsafeMutableRawPointer

  /// Why libcurl could not be had.
  struct Unavailable: Error, Hashable, Sendable, CustomStringConvertible {
    var description: String
  }

  /// libcurl, loaded once for the process (`nil` error the first time it was missing).
  static let shared: Result<LibCURL, Unavailable> = load()

  /// The library files tried, in order: OpenSSL's build (Debian's `libcurl4`), then GnuTLS's.
  static let names = ["libcurl.so.4", "libcurl-gnutls.so.4"]

  /// What to say when the library is missing.
  static let missing = Unavailable(
    description:
      "webhooks need the system's libcurl, which is not installed (no \(names.joined(separator: " or ")) where the dynamic loader looks). Install it (Debian and Ubuntu: 'sudo apt install libcurl4'), or leave out --webhook."
  )

  /// Whether the dynamic loader would find one of ``names``, asked without loading it: in a
  /// directory of `LD_LIBRARY_PATH`, in the loader's cache (`/etc/ld.so.cache`, which
  /// `ldconfig` writes with every library's name), or in the default directories.
  static var isInstalled: Bool {
    var directories = (getenv("LD_LIBRARY_PATH").map { String(cString: $0) } ?? "").split(separator: ":").map(String.init)
    directories += ["/lib", "/usr/lib", "/lib64", "/usr/lib64", "/usr/local/lib"]
    for directory in directories where !directory.isEmpty {
      for name in names where access(directory + "/" + name, R_OK) == 0 { return true }
    }
    guard let cache = try? FileContents.bytes(of: "/etc/ld.so.cache") else { return false }
    // Its names are ASCII, each ended by a NUL: what is not text around them does not matter.
    let text = String(decoding: cache, as: UTF8.self)
    return names.contains { text.includes($0 + "\u{0}") }
  }

  private static func load() -> Result<LibCURL, Unavailable> {
    guard let library = names.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first else {
      // Found where the loader looks, yet not loaded (another architecture's, a broken
      // install): the loader's own words say why.
      let why = dlerror().map { String(cString: $0) } ?? "no reason given"
      return .failure(
        Unavailable(
          description:
            "the system's libcurl could not be loaded for webhooks (\(why)). Reinstall it (Debian and Ubuntu: 'sudo apt install --reinstall libcurl4'), or leave out --webhook."
        ))
    }
    var missing: [String] = []
    func symbol(_ name: String) -> UnsafeMutableRawPointer {
      if let found = dlsym(library, name) { return found }
      missing.append(name)
      return UnsafeMutableRawPointer(bitPattern: 1)!
    }
    func function<F>(_ name: String, as type: F.Type) -> F { unsafeBitCast(symbol(name), to: type) }
    let curl = LibCURL(
      easyInit: function("curl_easy_init", as: (@convention(c) () -> Handle?).self),
      easyCleanup: function("curl_easy_cleanup", as: (@convention(c) (Handle?) -> Void).self),
      easyStrerror: function("curl_easy_strerror", as: (@convention(c) (Int32) -> UnsafePointer<CChar>?).self),
      multiInit: function("curl_multi_init", as: (@convention(c) () -> Handle?).self),
      multiAddHandle: function("curl_multi_add_handle", as: (@convention(c) (Handle?, Handle?) -> Int32).self),
      multiRemoveHandle: function("curl_multi_remove_handle", as: (@convention(c) (Handle?, Handle?) -> Int32).self),
      multiSocketAction: function(
        "curl_multi_socket_action", as: (@convention(c) (Handle?, Int32, Int32, UnsafeMutablePointer<Int32>?) -> Int32).self),
      multiInfoRead: function(
        "curl_multi_info_read", as: (@convention(c) (Handle?, UnsafeMutablePointer<Int32>?) -> UnsafeMutableRawPointer?).self),
      slistAppend: function("curl_slist_append", as: (@convention(c) (Handle?, UnsafePointer<CChar>?) -> Handle?).self),
      slistFreeAll: function("curl_slist_free_all", as: (@convention(c) (Handle?) -> Void).self),
      easySetopt: symbol("curl_easy_setopt"), easyGetinfo: symbol("curl_easy_getinfo"), multiSetopt: symbol("curl_multi_setopt"))
    let globalInit = function("curl_global_init", as: (@convention(c) (Int) -> Int32).self)
    guard missing.isEmpty else {
      return .failure(
        Unavailable(description: "the system's libcurl is too old for webhooks: it lacks \(missing.joined(separator: ", "))."))
    }
    // Once per process, before any handle (thread-safe in libcurl 7.84 and later; here it runs
    // once anyway, under the lazy static's lock).
    guard globalInit(3) == 0 else { return .failure(Unavailable(description: "the system's libcurl did not start (curl_global_init).")) }
    return .success(curl)
  }

  @discardableResult
  func set(_ handle: Handle?, _ option: Option, _ value: Int) -> Int32 {
    gpsbridge_curl_setopt_long(easySetopt, handle, option.rawValue, value)
  }

  @discardableResult
  func set(_ handle: Handle?, _ option: Option, _ value: UnsafeRawPointer?) -> Int32 {
    gpsbridge_curl_setopt_pointer(easySetopt, handle, option.rawValue, value)
  }

  @discardableResult
  func set(_ handle: Handle?, _ option: Option, _ value: String) -> Int32 {
    // libcurl copies string options.
    value.withCString { gpsbridge_curl_setopt_pointer(easySetopt, handle, option.rawValue, $0) }
  }

  @discardableResult
  func setMulti(_ handle: Handle?, _ option: MultiOption, _ value: UnsafeRawPointer?) -> Int32 {
    gpsbridge_curl_setopt_pointer(multiSetopt, handle, option.rawValue, value)
  }

  /// The HTTP status of the last response on `handle`, 0 before one came.
  func responseCode(_ handle: Handle?) -> Int {
    var code = 0
    _ = gpsbridge_curl_getinfo_long(easyGetinfo, handle, 0x20_0002, &code)  // CURLINFO_RESPONSE_CODE
    return code
  }

  /// What libcurl says a result code means.
  func describe(_ code: Int32) -> String {
    easyStrerror(code).map { String(cString: $0) } ?? "libcurl error \(code)"
  }

  /// The easy options used (`CURLOPT_*`).
  enum Option: Int32 {
    case writeData = 10001
    case url = 10002
    case postFieldSize = 60
    case copyPostFields = 10165
    case userAgent = 10018
    case httpHeader = 10023
    case writeFunction = 20011
    case timeoutMilliseconds = 155
    case connectTimeoutMilliseconds = 156
    case noSignal = 99
    case caInfo = 10065
    case protocols = 181
    case redirectProtocols = 182
    case post = 47
    case followLocation = 52
    case maxRedirects = 68
    case closeSocketFunction = 20208
    case closeSocketData = 10209
  }

  /// The multi options used (`CURLMOPT_*`).
  enum MultiOption: Int32 {
    case socketFunction = 20001
    case socketData = 10002
    case timerFunction = 20004
    case timerData = 10005
  }

  // Values of the socket interface (`curl/multi.h`).
  static let pollIn: Int32 = 1
  static let pollOut: Int32 = 2
  static let pollRemove: Int32 = 4
  static let selectIn: Int32 = 1
  static let selectOut: Int32 = 2
  static let socketTimeout: Int32 = -1
  static let messageDone: Int32 = 1
  static let protocolsHTTP = 1 | 2

  // Result codes told apart (`CURLcode`).
  static let ok: Int32 = 0
  static let couldNotResolveHost: Int32 = 6
  static let couldNotConnect: Int32 = 7
  static let writeError: Int32 = 23
  static let timedOut: Int32 = 28
  static let tooManyRedirects: Int32 = 47
  static let peerFailedVerification: Int32 = 60
}
