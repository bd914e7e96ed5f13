#if canImport(Glibc)
    import Glibc
#endif

/// A JSON document read a piece at a time from a file (or bytes), never whole: the caller walks its
/// outer structure (`beginObject`/`nextKey`, `beginArray`/`nextElement`) and takes each inner value
/// it wants as one `JSONValue` (`value()`) or passes over it (`skipValue()`). Memory is the 64 KiB
/// buffer plus the one value taken, which `JSONStreamLimits` bound: nesting depth, a string's bytes,
/// the number of values in one taken value. RFC 8259's grammar, strictly (no comments, no trailing
/// commas, no NaN); strings must be UTF-8.
public final class JSONStreamReader {
    let source: (UnsafeMutableRawBufferPointer) throws -> Int
    let limits: JSONStreamLimits
    let buffer: UnsafeMutableRawBufferPointer
    var position = 0
    var filled = 0
    var atEnd = false
    var consumedBefore = 0
    /// For each open object or array of the walk: whether its first member is still to come.
    var firstMember: [Bool] = []
    /// Values taken so far by the current `value()`.
    var taken = 0
    /// Scratch bytes of the current string or number.
    var scratch: [UInt8] = []

    /// The line the reader is on (1-based), for error messages.
    public private(set) var line = 1

    /// The bytes read so far.
    public var offset: Int { consumedBefore + position }

    /// Reads from an open file descriptor (which the caller closes).
    public convenience init(fileDescriptor: Int32, limits: JSONStreamLimits = JSONStreamLimits()) {
        self.init(limits: limits) { buffer in
            while true {
                let got = read(fileDescriptor, buffer.baseAddress, buffer.count)
                if got >= 0 { return got }
                if errno != EINTR { throw JSONStreamError.read(String(cString: strerror(errno))) }
            }
        }
    }

    /// Reads `bytes` (tests, small documents).
    public convenience init(bytes: [UInt8], limits: JSONStreamLimits = JSONStreamLimits()) {
        var rest = bytes[...]
        self.init(limits: limits) { buffer in
            let count = min(buffer.count, rest.count, 7)  // a few bytes at a time: refills are tested too
            for index in 0..<count { buffer[index] = rest[rest.startIndex + index] }
            rest = rest.dropFirst(count)
            return count
        }
    }

    public init(limits: JSONStreamLimits, source: @escaping (UnsafeMutableRawBufferPointer) throws -> Int) {
        self.limits = limits
        self.source = source
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
    }

    deinit { buffer.deallocate() }

    // MARK: Walking the outer structure

    /// Takes the `{` of an object whose keys `nextKey` then gives.
    public func beginObject() throws {
        try skipWhitespace()
        try expect(UInt8(ascii: "{"), "an object")
        try open()
    }

    /// The next key of the innermost open object (its `:` taken: its value comes next), or nil at its
    /// end (the `}` taken).
    public func nextKey() throws -> String? {
        try skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            advance()
            firstMember.removeLast()
            return nil
        }
        try separateMember()
        try skipWhitespace()
        guard try peek() == UInt8(ascii: "\"") else { throw syntax("expected a key in quotes") }
        let key = try string()
        try skipWhitespace()
        try expect(UInt8(ascii: ":"), "a colon after a key")
        return key
    }

    /// Takes the `[` of an array whose elements `nextElement` then announces.
    public func beginArray() throws {
        try skipWhitespace()
        try expect(UInt8(ascii: "["), "an array")
        try open()
    }

    /// True when another element of the innermost open array follows (take it with `value` or
    /// `skipValue`), false at its end (the `]` taken).
    public func nextElement() throws -> Bool {
        try skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            advance()
            firstMember.removeLast()
            return false
        }
        try separateMember()
        return true
    }

    /// Whether the next value is an array (else the caller takes it whole or skips it).
    public func nextIsArray() throws -> Bool {
        try skipWhitespace()
        return try peek() == UInt8(ascii: "[")
    }

    /// Checks that nothing but whitespace follows the document.
    public func end() throws {
        try skipWhitespace()
        guard try peek() == nil else { throw syntax("more after the end of the document") }
    }

    // MARK: Values

    /// The next value, whole, within the limits.
    public func value() throws -> JSONValue {
        taken = 0
        return try parseValue(depth: firstMember.count + 1, keep: true) ?? .null
    }

    /// Passes over the next value, keeping nothing of it, within the limits.
    public func skipValue() throws {
        taken = 0
        _ = try parseValue(depth: firstMember.count + 1, keep: false)
    }

    func open() throws {
        guard firstMember.count < limits.maxDepth else {
            throw JSONStreamError.tooDeep(line: line, limit: limits.maxDepth)
        }
        firstMember.append(true)
    }

    func separateMember() throws {
        guard let first = firstMember.last else { throw syntax("a member outside any object or array") }
        if first {
            firstMember[firstMember.count - 1] = false
        } else {
            try expect(UInt8(ascii: ","), "a comma between members")
            try skipWhitespace()
        }
    }

    // MARK: Bytes

    @inline(__always) func peek() throws -> UInt8? {
        if position == filled {
            guard try refill() else { return nil }
        }
        return buffer[position]
    }

    @inline(__always) func advance() { position += 1 }

    /// The next byte, taken; nil at the end of the input.
    @inline(__always) func next() throws -> UInt8? {
        guard let byte = try peek() else { return nil }
        position += 1
        return byte
    }

    func refill() throws -> Bool {
        guard !atEnd else { return false }
        consumedBefore += filled
        position = 0
        filled = try source(buffer)
        if filled == 0 { atEnd = true }
        return filled > 0
    }

    func skipWhitespace() throws {
        while let byte = try peek() {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): advance()
            case UInt8(ascii: "\n"):
                line += 1
                advance()
            default: return
            }
        }
    }

    func expect(_ byte: UInt8, _ what: String) throws {
        guard try next() == byte else { throw syntax("expected \(what)") }
    }

    func syntax(_ message: String) -> JSONStreamError { .syntax(line: line, message) }
}

/// How much one document may ask of the reader.
public struct JSONStreamLimits: Sendable, Equatable {
    /// Objects and arrays inside one another, counting the outer ones being walked.
    public var maxDepth = 64
    /// One string's bytes, once unescaped.
    public var maxStringBytes = 1 << 20
    /// Values (each number, string, array, object, …) in one value taken by `value()` or `skipValue()`.
    public var maxValues = 400_000

    public init(maxDepth: Int = 64, maxStringBytes: Int = 1 << 20, maxValues: Int = 400_000) {
        self.maxDepth = maxDepth
        self.maxStringBytes = maxStringBytes
        self.maxValues = maxValues
    }
}

public enum JSONStreamError: Error, Equatable, CustomStringConvertible, Sendable {
    case syntax(line: Int, String)
    case tooDeep(line: Int, limit: Int)
    case stringTooLong(line: Int, limit: Int)
    case tooManyValues(line: Int, limit: Int)
    case read(String)

    public var description: String {
        switch self {
        case .syntax(let line, let message): "line \(line): not valid JSON: \(message)"
        case .tooDeep(let line, let limit): "line \(line): nested deeper than \(limit) levels"
        case .stringTooLong(let line, let limit): "line \(line): a string longer than \(limit) bytes"
        case .tooManyValues(let line, let limit): "line \(line): more than \(limit) values in one item"
        case .read(let message): "cannot read the file: \(message)"
        }
    }
}
