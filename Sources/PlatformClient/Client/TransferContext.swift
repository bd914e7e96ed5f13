import CCurl

/// What curl's callbacks of one transfer work on: the body to send, the answer received.
final class TransferContext {
    let source: BodySource?
    let maxResponseBytes: Int
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    var responseTooLarge = false
    var bodyUnreadable = false

    init(request: TransferRequest, maxResponseBytes: Int) {
        switch request.body {
        case .none: source = nil
        case .bytes(let bytes): source = BodySource(bytes: bytes)
        case .multipart(let multipart): source = BodySource(multipart: multipart)
        }
        self.maxResponseBytes = maxResponseBytes
    }
}

/// A request body read front to back, rewindable: bytes in memory or a streamed multipart body.
final class BodySource {
    private let bytes: [UInt8]
    private let multipart: MultipartReader?
    private(set) var position = 0
    let totalLength: Int

    init(bytes: [UInt8]) {
        self.bytes = bytes
        multipart = nil
        totalLength = bytes.count
    }

    init(multipart body: MultipartBody) {
        bytes = []
        multipart = MultipartReader(body: body)
        totalLength = body.totalLength
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        if let multipart {
            let got = multipart.read(into: buffer)
            if let got { position += got }
            return got
        }
        let count = min(buffer.count, totalLength - position)
        guard count > 0, let to = buffer.baseAddress else { return 0 }
        bytes.withUnsafeBytes { from in
            if let base = from.baseAddress { to.copyMemory(from: base + position, byteCount: count) }
        }
        position += count
        return count
    }

    func seek(to offset: Int) -> Bool {
        guard offset >= 0, offset <= totalLength else { return false }
        if let multipart, !multipart.seek(to: offset) { return false }
        position = offset
        return true
    }
}

// curl's callbacks: free functions with C signatures; the context comes back through `userdata`.

func curlWriteCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
    _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let userData, let data else { return 0 }
    let context = Unmanaged<TransferContext>.fromOpaque(userData).takeUnretainedValue()
    let length = size * count
    if context.body.count + length > context.maxResponseBytes {
        context.responseTooLarge = true
        return 0  // curl aborts with CURLE_WRITE_ERROR
    }
    data.withMemoryRebound(to: UInt8.self, capacity: length) {
        context.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
    }
    return length
}

func curlHeaderCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
    _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let userData, let data else { return 0 }
    let context = Unmanaged<TransferContext>.fromOpaque(userData).takeUnretainedValue()
    let length = size * count
    let line = data.withMemoryRebound(to: UInt8.self, capacity: length) {
        String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
    }
    if line.hasPrefix("HTTP/") {
        context.headers.removeAll()  // a new status line (after "100 Continue"): start over
    } else if let colon = line.firstIndex(of: ":") {
        let name = String(line[..<colon])
        let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
        // "\r\n" is one Character in Swift: test for newlines, not for "\r" and "\n" apart.
        context.headers.append((name, String(value.prefix { !$0.isNewline })))
    }
    return length
}

func curlReadCallback(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
    _ userData: UnsafeMutableRawPointer?
) -> Int {
    guard let userData, let buffer else { return Int(CURL_READFUNC_ABORT) }
    let context = Unmanaged<TransferContext>.fromOpaque(userData).takeUnretainedValue()
    guard let source = context.source else { return 0 }
    guard let got = source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count)) else {
        context.bodyUnreadable = true
        return Int(CURL_READFUNC_ABORT)
    }
    return got
}

func curlSeekCallback(_ userData: UnsafeMutableRawPointer?, _ offset: curl_off_t, _ origin: Int32) -> Int32 {
    guard let userData, origin == SEEK_SET else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
    let context = Unmanaged<TransferContext>.fromOpaque(userData).takeUnretainedValue()
    guard let source = context.source, source.seek(to: Int(offset)) else { return Int32(CURL_SEEKFUNC_FAIL) }
    return Int32(CURL_SEEKFUNC_OK)
}
