/// "Did you mean …?": the known word closest to a mistyped one, when it is close enough to be
/// the word meant (a couple of letters swapped, left out or added), and `nil` otherwise.
enum Suggestion {
  static func closest(to typed: String, among known: some Sequence<String>) -> String? {
    let limit = max(1, min(2, typed.count / 3))
    var best: (word: String, distance: Int)?
    for word in known {
      let distance = editDistance(typed, word)
      if distance <= limit, distance < (best?.distance ?? .max) { best = (word, distance) }
    }
    return best?.word
  }

  /// The fewest insertions, deletions, substitutions and swaps of neighbouring letters that
  /// turn `a` into `b` (optimal string alignment).
  static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var before = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { current[j] = min(current[j], before[j - 2] + 1) }
      }
      (before, previous, current) = (previous, current, before)
    }
    return previous[b.count]
  }
}
