/// How alike two place names are, for ordering the likely sites of a report (docs/SITES.md): the
/// share of their letter trigrams in common (Jaccard), on lower-cased letters and digits with every
/// other run of characters one space, so "St. Mary's Church" and "st marys church" score 1.
enum SiteNames {
    static func similarity(_ a: String, _ b: String) -> Double {
        let left = trigrams(a)
        let right = trigrams(b)
        guard !left.isEmpty, !right.isEmpty else { return 0 }
        return Double(left.intersection(right).count) / Double(left.union(right).count)
    }

    static func trigrams(_ text: String) -> Set<String> {
        var folded = ""
        var space = true
        for character in text.lowercased() {
            if character.isLetter || character.isNumber {
                folded.append(character)
                space = false
            } else if character == "'" || character == "’" {
                continue
            } else if !space {
                folded.append(" ")
                space = true
            }
        }
        let letters = Array("  " + folded.trimmingSuffixSpace() + " ")
        guard letters.count >= 3 else { return [] }
        return Set((0...(letters.count - 3)).map { String(letters[$0..<($0 + 3)]) })
    }

    /// Nearest first, a name alike pulling a site forward: a site's distance is divided by 1 plus
    /// twice its name's similarity (an identical name at 300 m comes before another name at 100 m).
    static func order(_ candidates: [(site: RegisterSite, metres: Double)], name: String?)
        -> [(site: RegisterSite, metres: Double, similarity: Double)]
    {
        candidates.map { candidate in
            (
                site: candidate.site, metres: candidate.metres,
                similarity: name.map { similarity($0, candidate.site.name) } ?? 0
            )
        }.sorted { left, right in
            let l = left.metres / (1 + 2 * left.similarity)
            let r = right.metres / (1 + 2 * right.similarity)
            return l == r ? left.site.id < right.site.id : l < r
        }
    }
}

extension String {
    fileprivate func trimmingSuffixSpace() -> String {
        hasSuffix(" ") ? String(dropLast()) : self
    }
}
