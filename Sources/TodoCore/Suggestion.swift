/// "Did you mean": the closest known word to a misspelt one, by Damerau–Levenshtein distance
/// (insertions, deletions, substitutions and transpositions of neighbours each cost 1).
package enum Suggestion {
    /// The candidate closest to `word`, when it is close enough to be what was meant: at most 1
    /// edit for words of up to 4 characters (dashes not counted), at most 2 for longer ones, and
    /// never as many edits as the word has characters. Ties go to the earlier candidate.
    package static func closest(to word: String, in candidates: [String]) -> String? {
        let core = word.drop { $0 == "-" }.count
        guard core > 0 else { return nil }
        let limit = min(core <= 4 ? 1 : 2, core - 1)
        guard limit >= 1 else { return nil }
        var best: (word: String, distance: Int)?
        for candidate in candidates where candidate != word {
            let d = distance(word, candidate)
            if d <= limit, d < (best?.distance ?? .max) { best = (candidate, d) }
        }
        return best?.word
    }

    /// `; did you mean "x"?` for the closest candidate, or "".
    package static func hint(for word: String, in candidates: [String]) -> String {
        closest(to: word, in: candidates).map { "; did you mean \($0.debugDescription)?" } ?? ""
    }

    /// The optimal-string-alignment Damerau–Levenshtein distance between `a` and `b`, over
    /// characters (grapheme clusters).
    package static func distance(_ a: String, _ b: String) -> Int {
        let s = Array(a)
        let t = Array(b)
        if s.isEmpty { return t.count }
        if t.isEmpty { return s.count }
        var before = [Int](repeating: 0, count: t.count + 1) // row i-2
        var previous = Array(0...t.count) // row i-1
        var current = [Int](repeating: 0, count: t.count + 1)
        for i in 1...s.count {
            current[0] = i
            for j in 1...t.count {
                let cost = s[i - 1] == t[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, s[i - 1] == t[j - 2], s[i - 2] == t[j - 1] {
                    value = min(value, before[j - 2] + 1)
                }
                current[j] = value
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[t.count]
    }
}
