import Plumbing

/// Writes `bytes` to `path`, replacing it.
func writeFile(_ path: String, _ bytes: [UInt8]) {
  guard let file = fopen(path, "wb") else {
    print("Error: cannot write \(path)")
    exit(1)
  }
  _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
  fclose(file)
}
