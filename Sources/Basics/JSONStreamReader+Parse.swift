#if canImport(Glibc)
    import Glibc
#endif

extension JSONStreamReader {
    /// One value at nesting `depth`; nil when `keep` is false (the value was passed over).
    func parseValue(depth: Int, keep: Bool) throws -> JSONValue? {
        taken += 1
        guard taken <= limits.maxValues else {
            throw JSONStreamError.tooManyValues(line: line, limit: limits.maxValues)
        }
        try skipWhitespace()
        guard let byte = try peek() else { throw syntax("the document ends where a value was expected") }
        switch byte {
        case UInt8(ascii: "{"):
            return try parseObject(depth: depth, keep: keep)
        case UInt8(ascii: "["):
            return try parseArray(depth: depth, keep: keep)
        case UInt8(ascii: "\""):
            let text = try string()
            return keep ? .string(text) : nil
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try number())
        default:
            throw syntax("unexpected character \(Self.shown(byte))")
        }
    }

    func parseObject(depth: Int, keep: Bool) throws -> JSONValue? {
        guard depth <= limits.maxDepth else { throw JSONStreamError.tooDeep(line: line, limit: limits.maxDepth) }
        advance()
        var members: [String: JSONValue] = [:]
        try skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            advance()
            return keep ? .object(members) : nil
        }
        while true {
            try skipWhitespace()
            guard try peek() == UInt8(ascii: "\"") else { throw syntax("expected a key in quotes") }
            let key = try string()
            try skipWhitespace()
            try expect(UInt8(ascii: ":"), "a colon after a key")
            let member = try parseValue(depth: depth + 1, keep: keep)
            if keep { members[key] = member ?? .null }
            try skipWhitespace()
            switch try next() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "}"): return keep ? .object(members) : nil
            default: throw syntax("expected a comma or } in an object")
            }
        }
    }

    func parseArray(depth: Int, keep: Bool) throws -> JSONValue? {
        guard depth <= limits.maxDepth else { throw JSONStreamError.tooDeep(line: line, limit: limits.maxDepth) }
        advance()
        var elements: [JSONValue] = []
        try skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            advance()
            return keep ? .array(elements) : nil
        }
        while true {
            let element = try parseValue(depth: depth + 1, keep: keep)
            if keep { elements.append(element ?? .null) }
            try skipWhitespace()
            switch try next() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "]"): return keep ? .array(elements) : nil
            default: throw syntax("expected a comma or ] in an array")
            }
        }
    }

    func literal(_ word: StaticString) throws {
        let bytes = UnsafeRawBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for expected in bytes {
            guard try next() == expected else { throw syntax("expected \(word)") }
        }
    }

    /// A number by RFC 8259's grammar (checked here: `strtod` alone would take `inf` or hexadecimal).
    func number() throws -> Double {
        scratch.removeAll(keepingCapacity: true)
        func digits() throws -> Int {
            var count = 0
            while let byte = try peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                scratch.append(byte)
                advance()
                count += 1
                guard scratch.count <= 400 else { throw syntax("a number too long") }
            }
            return count
        }
        if try peek() == UInt8(ascii: "-") {
            scratch.append(UInt8(ascii: "-"))
            advance()
        }
        let first = try peek()
        guard try digits() > 0 else { throw syntax("a number without digits") }
        if first == UInt8(ascii: "0"), scratch.count > (scratch.first == UInt8(ascii: "-") ? 2 : 1) {
            throw syntax("a number with a leading zero")
        }
        if try peek() == UInt8(ascii: ".") {
            scratch.append(UInt8(ascii: "."))
            advance()
            guard try digits() > 0 else { throw syntax("a number without digits after its point") }
        }
        if let byte = try peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            scratch.append(byte)
            advance()
            if let sign = try peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                scratch.append(sign)
                advance()
            }
            guard try digits() > 0 else { throw syntax("a number without digits in its exponent") }
        }
        scratch.append(0)
        let value = scratch.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { characters in
                characters.baseAddress.map { strtod($0, nil) } ?? .nan
            }
        }
        guard value.isFinite else { throw syntax("a number too large") }
        return value
    }

    /// A string (the opening quote next), unescaped, UTF-8 checked.
    func string() throws -> String {
        advance()
        scratch.removeAll(keepingCapacity: true)
        while true {
            guard let byte = try next() else { throw syntax("the document ends inside a string") }
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: scratch, as: UTF8.self) else {
                    throw syntax("a string that is not UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                try escape()
            case 0..<0x20:
                throw syntax("a control character inside a string")
            default:
                scratch.append(byte)
            }
            guard scratch.count <= limits.maxStringBytes else {
                throw JSONStreamError.stringTooLong(line: line, limit: limits.maxStringBytes)
            }
        }
    }

    func escape() throws {
        guard let byte = try next() else { throw syntax("the document ends inside a string") }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard try next() == UInt8(ascii: "\\"), try next() == UInt8(ascii: "u") else {
                    throw syntax("a lone surrogate in a \\u escape")
                }
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw syntax("a lone surrogate in a \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw syntax("a lone surrogate in a \\u escape") }
            scratch.append(contentsOf: String(Character(unicode)).utf8)
        default:
            throw syntax("an unknown escape \\\(Self.shown(byte))")
        }
    }

    func hex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = try next(), Hex.isDigit(byte) else { throw syntax("a bad \\u escape") }
            let digit = byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : (byte | 0x20) - UInt8(ascii: "a") + 10
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    static func shown(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte \(byte)"
    }
}
