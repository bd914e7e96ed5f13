/// Whole numbers written as ASCII decimal digits straight into a byte buffer, exactly as
/// `String(value)` spells them: `String(value)` goes through the standard library's generic radix
/// formatter, ~650 instructions per number (callgrind), and the list's ETag text has seven of them.
public enum DecimalDigits {
    public static func append(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude))
            return
        }
        // Written backwards into a buffer on the stack, then appended at once: appending digit by
        // digit and reversing the slice in place was ~500 instructions per number (callgrind).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    public static func append(_ value: Int, to bytes: inout [UInt8]) { append(Int64(value), to: &bytes) }
}
