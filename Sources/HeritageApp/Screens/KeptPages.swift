import Basics
import CZlib
import HTTPServer
import Synchronization

/// The list's answers as rendered, kept by their strong ETag (`ReportListScreen.listTag`).
///
/// The tag is made, before any row is read, from everything the answer depends on: the user, their
/// list version (moved in the transaction of every change to what the list shows, the worker's and the
/// reviewers' included), the language, the query, the session's CSRF token, the user's e-mail, name and
/// settings. A 304 for a tag already stands for bytes that still work; a body kept under the same tag
/// is those very bytes, so serving it again can show nothing the 304 would not (never a stale status),
/// and costs neither the page's query nor its rendering.
///
/// What differs between two responses of one tag is cut out: a page is kept in parts, split where its
/// CSRF token goes, and every response gets the token masked afresh in each place (`CSRFMask`, BREACH:
/// the page may go gzip-compressed). gzip is applied later, per response, as for any page.
///
/// Bounded, per process: at most `maximumEntries` answers and `maximumBytes` bytes in all (bodies,
/// tags and a fixed overhead per entry), the least recently used going first; an answer larger than an
/// eighth of the bound is not kept. `maximumBytes` 0 keeps nothing. Thread-safe: one read-write lock
/// around a dictionary, read for a lookup (which stamps the entry's recency atomically) and written for
/// an insertion, never held while rendering.
final class KeptPages: Sendable {
    /// The most answers kept, whatever their size.
    static let maximumEntries = 256
    /// What an entry costs besides its bytes (dictionary slot, arrays' headers), counted in the bound.
    static let entryOverhead = 256

    /// One kept answer: the body in parts, the token going between each two.
    struct Page: Sendable {
        /// The user it was rendered for: checked again on every lookup, besides the tag.
        let userID: Int64
        let parts: [[UInt8]]
        /// The parts compressed once (`withGzip`), for clients that take gzip; nil: compressed per response.
        private(set) var gzip: GzipParts?

        /// Bytes kept: the body's without the tokens, and the compressed parts' when kept.
        var bytes: Int { bodyBytes + (gzip?.bytes ?? 0) }
        /// The body's bytes without the tokens.
        var bodyBytes: Int { parts.reduce(0) { $0 + $1.count } }

        /// The page with its parts compressed at `level`; unchanged when zlib fails.
        /// The page with its parts compressed at `level`, for tokens of `tokenLength` bytes (a session's
        /// masked tokens all have one length); unchanged when zlib fails.
        func withGzip(level: Int32, tokenLength: Int) -> Page {
            var page = self
            page.gzip = GzipParts(parts, level: level, tokenLength: tokenLength)
            return page
        }

        /// The gzip member (RFC 1952) of the body with `token` in each place, made of the kept
        /// compressed parts and the token in stored blocks: no deflate per response. Nil when the parts
        /// were not compressed, or for a token of another length.
        func gzipBody(token: String) -> [UInt8]? {
            guard let gzip, token.utf8.count == gzip.tokenLength else { return nil }
            var token = token
            return token.withUTF8 { token in gzip.member(token: token) }
        }

        /// The body with `token` in each place, as the pieces a response sends (`ResponsePieces`;
        /// `joined()` gives it in one array).
        func pieces(token: String) -> ResponsePieces { ResponsePieces(parts: parts, joiner: Array(token.utf8)) }

        /// `body` cut at each occurrence of `marker` (the marker itself left out). Boyer-Moore-Horspool:
        /// the byte under the marker's last position says how far to move, so a 56 KB page is looked at
        /// ~1,500 times for a 36-byte marker (a byte-by-byte scan cost 0.5 M instructions, a third of
        /// rendering the page).
        init(userID: Int64, body: [UInt8], cutAt marker: [UInt8]) {
            self.userID = userID
            self.gzip = nil
            let length = marker.count
            guard length > 0 else {
                parts = [body]
                return
            }
            var skip = [Int](repeating: length, count: 256)
            for (index, byte) in marker.dropLast().enumerated() { skip[Int(byte)] = length - 1 - index }
            var parts: [[UInt8]] = []
            body.withUnsafeBufferPointer { bytes in
                marker.withUnsafeBufferPointer { marker in
                    var start = 0
                    var index = 0
                    let lastByte = marker[length - 1]
                    while index + length <= bytes.count {
                        let under = bytes[index + length - 1]
                        if under == lastByte, (0..<length - 1).allSatisfy({ bytes[index + $0] == marker[$0] }) {
                            parts.append(Array(bytes[start..<index]))
                            index += length
                            start = index
                        } else {
                            index += skip[Int(under)]
                        }
                    }
                    parts.append(Array(bytes[start...]))
                }
            }
            self.parts = parts
        }

        /// A body without places.
        init(userID: Int64, body: [UInt8]) {
            self.userID = userID
            self.gzip = nil
            self.parts = [body]
        }
    }

    /// A page's parts as independent raw deflate streams (RFC 1951), each ended by a full flush (byte
    /// aligned, no final block, nothing referring back across parts), with each part's CRC-32 and
    /// length. A response's gzip member is the header, the parts with the token between them in
    /// stored blocks, an empty final block, and the CRC-32 of the whole joined by `crc32_combine`.
    ///
    /// Each part after the first is compressed with what precedes it as its preset dictionary (the
    /// last 32 KB, as the decoder's window holds it), the token's places filled with NUL bytes, which a
    /// page never holds: its back-references reach the earlier parts, as one stream's would, and never
    /// a token's bytes, which differ per response. Without it the kept page went out 16 % larger than
    /// compressed whole (8,977 bytes against 7,702). The token's length is therefore fixed.
    struct GzipParts: Sendable {
        let streams: [[UInt8]]
        let crcs: [UInt32]
        let lengths: [Int]
        let tokenLength: Int

        var bytes: Int { streams.reduce(0) { $0 + $1.count } }

        init?(_ parts: [[UInt8]], level: Int32, tokenLength: Int) {
            var streams: [[UInt8]] = []
            var before: [UInt8] = []
            // A part holding a NUL (a name typed with one) could match into the filler: no dictionary then.
            let dictionaries = !parts.contains { $0.contains(0) }
            for (index, part) in parts.enumerated() {
                if index > 0 { before.append(contentsOf: repeatElement(0, count: tokenLength)) }
                let dictionary = dictionaries ? before.suffix(32_768) : ArraySlice()
                guard let stream = Self.deflateFlushed(part, level: level, dictionary: dictionary) else { return nil }
                streams.append(stream)
                before.append(contentsOf: part)
            }
            self.tokenLength = tokenLength
            self.streams = streams
            crcs = parts.map { part in
                part.withUnsafeBufferPointer { UInt32(truncatingIfNeeded: crc32(0, $0.baseAddress, uInt($0.count))) }
            }
            lengths = parts.map(\.count)
        }

        /// Raw deflate of `bytes` ended by `Z_FULL_FLUSH`; empty for an empty part.
        static func deflateFlushed(_ bytes: [UInt8], level: Int32, dictionary: ArraySlice<UInt8> = []) -> [UInt8]? {
            guard !bytes.isEmpty else { return [] }
            var stream = z_stream()
            guard har_deflate_init_raw(&stream, max(1, min(9, level))) == Z_OK else { return nil }
            defer { deflateEnd(&stream) }
            if !dictionary.isEmpty {
                let set = dictionary.withUnsafeBufferPointer {
                    deflateSetDictionary(&stream, $0.baseAddress, uInt($0.count))
                }
                guard set == Z_OK else { return nil }
            }
            // deflateBound is for Z_FINISH; a full flush adds an empty stored block (5 bytes) and may
            // need a few bits more for the last block's end.
            let bound = Int(deflateBound(&stream, uLong(bytes.count))) + 16
            let (output, status) = Compression.deflateOnce(&stream, bytes, capacity: bound, flush: Z_FULL_FLUSH)
            return status == Z_OK && stream.avail_in == 0 && stream.avail_out > 0 ? output : nil
        }

        func member(token: UnsafeBufferPointer<UInt8>) -> [UInt8] {
            var member: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]
            member.reserveCapacity(bytes + 32 + streams.count * (token.count + 5))
            var crc: uLong = 0
            var total = 0
            let tokenCount = token.count
            for index in streams.indices {
                if index > 0 && tokenCount > 0 {
                    // A stored block, not the last (BFINAL 0, BTYPE 00): LEN, NLEN, the bytes.
                    member.append(0)
                    member.append(contentsOf: [
                        UInt8(tokenCount & 0xff), UInt8(tokenCount >> 8), UInt8(~tokenCount & 0xff),
                        UInt8((~tokenCount >> 8) & 0xff),
                    ])
                    member.append(contentsOf: token)
                    crc = crc32(crc, token.baseAddress, uInt(tokenCount))
                    total += tokenCount
                }
                member.append(contentsOf: streams[index])
                crc = crc32_combine(crc, uLong(crcs[index]), lengths[index])
                total += lengths[index]
            }
            // The last block: empty, stored, final.
            member.append(contentsOf: [1, 0, 0, 0xff, 0xff])
            for value in [UInt32(truncatingIfNeeded: crc), UInt32(truncatingIfNeeded: total)] {
                for shift in stride(from: 0, to: 32, by: 8) { member.append(UInt8(truncatingIfNeeded: value >> shift)) }
            }
            return member
        }
    }

    /// One kept answer and what it counts for. A class, so that a lookup marks it used through its
    /// atomic stamp under the read lock, without writing the table.
    private final class Entry: Sendable {
        let page: Page
        let cost: Int
        let used: Atomic<UInt64>

        init(page: Page, cost: Int, used: UInt64) {
            self.page = page
            self.cost = cost
            self.used = Atomic(used)
        }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
    }

    /// The bound in bytes; 0: nothing is kept.
    let maximumBytes: Int
    /// Looked up by every request for the list, on every MHD thread at once, and changed only when a
    /// list changes: a read-write lock, so that lookups never wait for one another. (A `Mutex` here
    /// was the list's main wait: with `HAR_THREADS=8`, 81 % of its threads' context switches were
    /// blocking on it, and its rate halved.)
    private let state = ReadMostly(State())
    /// Recency: each lookup and insertion takes the next stamp; the smallest stamp goes first.
    private let clock = Atomic<UInt64>(0)

    init(maximumBytes: Int) {
        self.maximumBytes = max(0, maximumBytes)
    }

    var isOn: Bool { maximumBytes > 0 }

    /// The answer kept for `tag`, if it was rendered for `userID`.
    func page(_ tag: String, userID: Int64) -> Page? {
        guard isOn else { return nil }
        guard let entry = state.read({ $0.entries[tag] }), entry.page.userID == userID else { return nil }
        entry.used.store(clock.wrappingAdd(1, ordering: .relaxed).newValue, ordering: .relaxed)
        return entry.page
    }

    /// Keeps `page` under `tag`, making room by dropping the least recently used; a page too large for
    /// an eighth of the bound is not kept.
    func keep(_ tag: String, _ page: Page) {
        let cost = page.bytes + tag.utf8.count + Self.entryOverhead + page.parts.count * 32
        guard isOn, cost <= maximumBytes / 8 else { return }
        let entry = Entry(page: page, cost: cost, used: clock.wrappingAdd(1, ordering: .relaxed).newValue)
        state.write { state in
            if let old = state.entries.removeValue(forKey: tag) { state.bytes -= old.cost }
            while !state.entries.isEmpty
                && (state.entries.count >= Self.maximumEntries || state.bytes + cost > maximumBytes)
            {
                guard
                    let oldest = state.entries.min(by: {
                        $0.value.used.load(ordering: .relaxed) < $1.value.used.load(ordering: .relaxed)
                    })
                else { break }
                state.entries.removeValue(forKey: oldest.key)
                state.bytes -= oldest.value.cost
            }
            state.entries[tag] = entry
            state.bytes += cost
        }
    }

    /// How many answers are kept, and the bytes they count for (tests, metrics).
    var usage: (count: Int, bytes: Int) { state.read { ($0.entries.count, $0.bytes) } }
}
