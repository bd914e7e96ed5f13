extension StringProtocol {
    /// The UTF-8 bytes in place (a native String or Substring always has them so), else a copy. A loop
    /// over the buffer costs a few instructions a byte; one over `utf8`'s iterator cost ~35 in the checks
    /// every request makes of its path and Host (callgrind).
    func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        return try Array(utf8).withUnsafeBufferPointer(body)
    }
}
