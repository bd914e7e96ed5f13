import CCurl

/// What curl's callbacks of one SMTP transfer work on: the message to upload, the server's reply lines.
final class SMTPTransfer {
    let message: [UInt8]
    private(set) var position = 0
    private(set) var replies: [String] = []

    init(message: [UInt8]) { self.message = message }

    var wholeMessageRead: Bool { position >= message.count }

    fileprivate func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, message.count - position)
        guard count > 0, let to = buffer.baseAddress else { return 0 }
        message.withUnsafeBytes { from in
            if let base = from.baseAddress { to.copyMemory(from: base + position, byteCount: count) }
        }
        position += count
        return count
    }

    fileprivate func record(reply line: String) {
        // The server's lines only: a reply to AUTH may echo nothing secret, but keep the list short.
        if replies.count >= 64 { replies.removeFirst() }
        replies.append(line)
    }

    /// The last line the server said, for `har mail test` and the outbox's record.
    var lastReply: String { replies.last ?? "" }
}

// curl's callbacks: free functions with C signatures; the transfer comes back through `userdata`.

func smtpReadCallback(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let userData, let buffer else { return Int(CURL_READFUNC_ABORT) }
    let transfer = Unmanaged<SMTPTransfer>.fromOpaque(userData).takeUnretainedValue()
    return transfer.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
}

/// For SMTP, curl hands the server's reply lines to the header function.
func smtpReplyCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let userData, let data else { return 0 }
    let transfer = Unmanaged<SMTPTransfer>.fromOpaque(userData).takeUnretainedValue()
    let length = size * count
    let line = data.withMemoryRebound(to: UInt8.self, capacity: length) {
        String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
    }
    transfer.record(reply: String(line.prefix { !$0.isNewline }))
    return length
}
