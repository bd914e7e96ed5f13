/// Whole numbers written as ASCII decimal digits straight into a byte buffer, exactly as
/// `String(value)` spells them: `String(value)` goes through the standard library's generic radix
/// formatter, ~650 instructions per number (callgrind), and the list's ETag text has seven of them.
public enum DecimalDigits {
    public static func append(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[start...].reverse()
    }

    public static func append(_ value: Int, to bytes: inout [UInt8]) { append(Int64(value), to: &bytes) }
}
