/// The dimension of a fix, from GSA field 2.
public enum FixMode: String, Hashable, Sendable, Codable, Comparable {
  case none, twoD, threeD

  public static func < (lhs: FixMode, rhs: FixMode) -> Bool {
    func rank(_ mode: FixMode) -> Int {
      switch mode {
      case .none: 0
      case .twoD: 1
      case .threeD: 2
      }
    }
    return rank(lhs) < rank(rhs)
  }
}
