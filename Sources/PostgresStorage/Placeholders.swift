/// Rewrites SQLite-style positional placeholders (`?`) as PostgreSQL's (`$1`, `$2`, …), so that a
/// statement reads the same in both backends' stores. A `?` inside a string literal, a quoted
/// identifier or a comment is left alone; SQL that already uses `$n` passes through unchanged.
enum Placeholders {
    static func numbered(_ sql: String) -> String {
        guard sql.utf8.contains(UInt8(ascii: "?")) else { return sql }
        var output: [UInt8] = []
        output.reserveCapacity(sql.utf8.count + 16)
        var count = 0
        let bytes = Array(sql.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                // Copy the quoted run whole; a doubled quote inside it is two runs back to back.
                let end = bytes[(index + 1)...].firstIndex(of: byte) ?? (bytes.count - 1)
                output.append(contentsOf: bytes[index...end])
                index = end + 1
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                let end = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? (bytes.count - 1)
                output.append(contentsOf: bytes[index...end])
                index = end + 1
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                var end = index + 2
                while end + 1 < bytes.count, !(bytes[end] == UInt8(ascii: "*") && bytes[end + 1] == UInt8(ascii: "/")) {
                    end += 1
                }
                end = min(end + 1, bytes.count - 1)
                output.append(contentsOf: bytes[index...end])
                index = end + 1
            case UInt8(ascii: "?"):
                count += 1
                output.append(UInt8(ascii: "$"))
                output.append(contentsOf: Array(String(count).utf8))
                index += 1
            default:
                output.append(byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
