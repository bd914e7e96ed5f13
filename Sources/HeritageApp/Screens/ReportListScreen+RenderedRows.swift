import Glibc
import HTTPServer
import Mustache

extension ReportListScreen {
    /// Each row's HTML as the list shows it, kept by everything it is made from: the row as read
    /// (state, name, address, time, last error, photo counts, ids) and the language. A change to any
    /// of it is another key, so a kept row can never show a stale status; what the key does not hold
    /// (templates, messages) does not change while the process runs. Rendering a row was a third of
    /// the list page's instructions (bench/instructions.sh, docs/BENCHMARKS.md). At most `capacity`
    /// rows (about 1.1 KB each) are kept; when full, all are dropped and the next pages render them again.
    ///
    /// The key of a kept row is one byte string (`bytes(_:language:)`): each text field as its UTF-8
    /// length in 4 bytes (nil is 0xFFFF_FFFF; a field never reaches 4 GiB) and its bytes, in a fixed
    /// order, then the time's and the two counts' 8 bytes each, so that no two different rows (or
    /// languages) make the same bytes. A look-up makes no key: it finds the kept entry by the row's
    /// identity, a fingerprint of its id and the language (`identity`), and compares the kept bytes with
    /// the row's fields where they lie (`memcmp`). A report has one kept entry per language: a changed
    /// row finds its old entry, whose bytes differ, is rendered anew and takes the entry's place. A key
    /// that held the row itself cost about a fifth of the page's instructions (callgrind): hashing field
    /// by field, copying and destroying six Strings per row, comparing them field by field; a
    /// fingerprint of every field was two fifths of the look-up's (perf), for nothing the comparison
    /// does not already decide.
    final class RenderedRows: Sendable {
        static let capacity = 4_096

        /// A kept row: its key's bytes, and the row as `partials/report-rows` renders it,
        /// `{"html": …}`, made once when kept, not per page (a field list per row per page was ~700
        /// instructions).
        fileprivate struct Kept: Sendable {
            let bytes: [UInt8]
            let value: MustacheValue
        }

        /// What a page's look-up found for one of its rows: the row's fingerprint (kept with the row
        /// if it is rendered now) and its kept value, if any.
        struct Found {
            fileprivate let fingerprint: UInt64
            let value: MustacheValue?
        }

        /// A row rendered for the first time, kept with the page's others in one write (`keep(_:)`).
        struct Fresh {
            fileprivate let fingerprint: UInt64
            fileprivate let kept: Kept
            var value: MustacheValue { kept.value }
        }

        /// By identity; two rows of the same fingerprint (the same report and language, or a collision
        /// never seen) take turns: the bytes decide.
        /// Behind a read-write lock taken once per page: every MHD thread reads it at once, and a
        /// `Mutex` taken per row put threads to sleep on each other (a futex wait and a context
        /// switch in most requests under wrk, `strace -c`; docs/BENCHMARKS.md).
        private let kept = ReadMostly<[UInt64: Kept]>([:])

        init() {}

        /// One row's HTML, kept or rendered now and kept: `look` and `keep` for a page of one row.
        func html(_ row: ListedReport, language: String, render: () throws -> String) throws -> String {
            let found = look([row], language: language)[0]
            let value: MustacheValue
            if let kept = found.value {
                value = kept
            } else {
                let fresh = Self.fresh(found, row, language: language, html: try render())
                keep([fresh])
                value = fresh.value
            }
            guard case .fields(let fields) = value, case .string(let html)? = fields["html"] else { return "" }
            return html
        }

        /// The kept value of each of `rows` in `language`, where one was kept from the very same bytes,
        /// under one read of the kept rows.
        func look(_ rows: [ListedReport], language: String) -> [Found] {
            kept.read { kept in
                var found: [Found] = []
                found.reserveCapacity(rows.count)
                for row in rows {
                    let fingerprint = Self.identity(row, language: language)
                    var value: MustacheValue?
                    if let entry = kept[fingerprint], Self.matches(entry.bytes, row, language: language) {
                        value = entry.value
                    }
                    found.append(Found(fingerprint: fingerprint, value: value))
                }
                return found
            }
        }

        /// A row rendered now, ready to keep: its key's bytes and its value as the page renders it.
        static func fresh(_ found: Found, _ row: ListedReport, language: String, html: String) -> Fresh {
            let value: MustacheValue = ["html": .string(html)]
            return Fresh(
                fingerprint: found.fingerprint, kept: Kept(bytes: bytes(row, language: language), value: value))
        }

        /// Keeps a page's freshly rendered rows, in one write: at most `capacity` of them (a page may
        /// show more rows than that).
        func keep(_ fresh: [Fresh]) {
            guard !fresh.isEmpty else { return }
            kept.write { kept in
                if kept.count + fresh.count > Self.capacity { kept.removeAll(keepingCapacity: true) }
                for row in fresh.prefix(Self.capacity) { kept[row.fingerprint] = row.kept }
            }
        }

        var count: Int { kept.read { $0.count } }

        /// The fields of the key of `row` in `language`, in their order: the one list that the key's
        /// size, its bytes and the comparison all walk, so they cannot disagree.
        @inline(__always)
        fileprivate static func fields<Visitor: KeyFields>(
            _ row: ListedReport, language: String, _ visitor: inout Visitor
        ) -> Bool {
            visitor.field(row.localID) && visitor.field(row.platformReportID) && visitor.field(row.state.rawValue)
                && visitor.field(row.name) && visitor.field(row.formattedAddress) && visitor.field(row.lastError)
                && visitor.field(language) && visitor.field(row.creationTime.bitPattern)
                && visitor.field(UInt64(bitPattern: Int64(row.photoCount)))
                && visitor.field(UInt64(bitPattern: Int64(row.photosStored)))
        }

        /// The key's bytes of `row` in `language`, written in place into one allocation.
        static func bytes(_ row: ListedReport, language: String) -> [UInt8] {
            var sizer = KeySizer()
            _ = fields(row, language: language, &sizer)
            return [UInt8](unsafeUninitializedCapacity: sizer.size) { buffer, written in
                var writer = KeyWriter(out: UnsafeMutableRawBufferPointer(buffer))
                _ = fields(row, language: language, &writer)
                written = writer.offset
            }
        }

        /// Where `row` in `language` is kept: a fingerprint of the report's id and the language, the
        /// same whatever else of the row changes (the bytes' comparison decides whether it is the same row).
        static func identity(_ row: ListedReport, language: String) -> UInt64 {
            var mixer = KeyMixer()
            _ = mixer.field(row.localID) && mixer.field(language)
            return mixer.hash
        }

        /// Whether `bytes` are the key's bytes of `row` in `language`: compared field by field where
        /// the fields lie, without making the row's bytes.
        static func matches(_ bytes: [UInt8], _ row: ListedReport, language: String) -> Bool {
            bytes.withUnsafeBytes { raw in
                var reader = KeyReader(raw: raw)
                return fields(row, language: language, &reader) && reader.offset == raw.count
            }
        }
    }
}

/// What walks a key's fields (`ReportListScreen.RenderedRows.fields`): a text, or nil, and a number;
/// `false` stops the walk (a comparison that found a difference).
private protocol KeyFields {
    mutating func field(_ text: String?) -> Bool
    mutating func field(_ number: UInt64) -> Bool
}

/// A key's size in bytes: 4 for each text's length, its UTF-8 bytes, 8 for each number.
private struct KeySizer: KeyFields {
    var size = 0

    mutating func field(_ text: String?) -> Bool {
        size += 4 + (text?.utf8.count ?? 0)
        return true
    }

    mutating func field(_ number: UInt64) -> Bool {
        size += 8
        return true
    }
}

/// Writes a key's fields (`ReportListScreen.RenderedRows`): a text as its UTF-8 length in 4 bytes
/// (nil: 0xFFFF_FFFF) and its bytes, a number as its 8 bytes. Structs with mutating methods rather
/// than nested functions over a captured variable: those paid a dynamic exclusivity check
/// (`swift_beginAccess`) on every use.
private struct KeyWriter: KeyFields {
    let out: UnsafeMutableRawBufferPointer
    var offset = 0

    mutating func field(_ text: String?) -> Bool {
        guard let text else {
            put32(UInt32.max)
            return true
        }
        let count = text.utf8.count
        put32(UInt32(truncatingIfNeeded: count))
        for (index, byte) in text.utf8.enumerated() { out[offset + index] = byte }
        offset += count
        return true
    }

    mutating func field(_ number: UInt64) -> Bool {
        out.storeBytes(of: number, toByteOffset: offset, as: UInt64.self)
        offset += 8
        return true
    }

    private mutating func put32(_ number: UInt32) {
        out.storeBytes(of: number, toByteOffset: offset, as: UInt32.self)
        offset += 4
    }
}

/// A fingerprint of some of a key's fields (`RenderedRows.identity`), mixed field by field: each
/// length, then its text 8 bytes at a time (the last word padded with zeros), then the numbers. Only
/// a quick filter: a fingerprint found still has its bytes compared.
private struct KeyMixer: KeyFields {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func field(_ text: String?) -> Bool {
        mix(text)
        return true
    }

    mutating func field(_ number: UInt64) -> Bool {
        mix(number)
        return true
    }

    @inline(__always)
    mutating func mix(_ word: UInt64) {
        hash = (hash ^ word) &* 0x9e37_79b9_7f4a_7c15
        hash ^= hash >> 29
    }

    mutating func mix(_ text: String?) {
        guard let text else { return mix(UInt64(UInt32.max)) }
        mix(UInt64(text.utf8.count))
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { utf8 in mix(UnsafeRawBufferPointer(utf8)) }
        if done == nil { Array(text.utf8).withUnsafeBytes { mix($0) } }
    }

    private mutating func mix(_ raw: UnsafeRawBufferPointer) {
        var offset = 0
        while offset + 8 <= raw.count {
            mix(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < raw.count {
            tail |= UInt64(raw[offset]) << shift
            shift += 8
            offset += 1
        }
        mix(tail)
    }
}

/// Compares a kept key's bytes with a row's fields in `KeyWriter`'s order, without writing them.
private struct KeyReader: KeyFields {
    let raw: UnsafeRawBufferPointer
    var offset = 0

    mutating func field(_ text: String?) -> Bool {
        guard offset + 4 <= raw.count else { return false }
        let length = raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        offset += 4
        guard let text else { return length == UInt32.max }
        let count = text.utf8.count
        guard length == UInt32(truncatingIfNeeded: count), offset + count <= raw.count else { return false }
        let start = offset
        offset += count
        let kept = raw
        let equal = text.utf8.withContiguousStorageIfAvailable { utf8 in
            guard let keptBase = kept.baseAddress, let base = utf8.baseAddress, count > 0 else { return true }
            return memcmp(keptBase + start, base, count) == 0
        }
        return equal ?? text.utf8.elementsEqual(raw[start..<start + count])
    }

    mutating func field(_ number: UInt64) -> Bool {
        guard offset + 8 <= raw.count else { return false }
        let kept = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset += 8
        return kept == number
    }
}
