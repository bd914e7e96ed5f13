// libFuzzer harness: request bodies through the real server (MHD's post processor feeding BodyReader:
// multipart parts streamed to files, urlencoded fields, raw bodies kept or spooled). One HTTPServer runs
// on a loopback port for the whole run. The input's first line is the Content-Type (a leading "!" picks
// the route that also spools the raw body); the rest is the body, sent with its exact Content-Length on a
// fresh connection. Checked on every input: an answer comes (no hang: 10 s), its status is one the reader
// may give (200, 400, 413), and a handler never sees more files, larger files or more field bytes than
// the limits allow, nor a file part whose temporary file is missing or of another size; a body that is
// not a form arrives byte for byte, and a spooled copy is the body exactly as sent.
// Built with -D RAW_REQUESTS, this is the `http-request` harness: each input is a whole raw request
// (request line, headers, body; "Connection: close" added after its first line) and the connection's
// sending side is then shut: any answer or none is fine, but not a crash or a hang, and the request a
// handler sees has cookies, query and path that keep the rules of `Decoding`.
import Glibc
import Synchronization

/// The body being sent (nil for a raw request): one request at a time, so the handler can compare.
let sentBody = Mutex<[UInt8]?>(nil)

func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 { return nil }
        if n == 0 { return bytes }
        bytes += buffer[..<n]
    }
}

/// An idle timeout of 1 s: a client that sends less body than it announced and half-closes is not always
/// noticed by MHD (epoll) until the connection times out.
let bodyLimits = ServerLimits(
    maxBodyBytes: 256 << 10, maxFileBytes: 64 << 10, maxFiles: 3, idleTimeoutSeconds: 1,
    maxInMemoryBodyBytes: 32 << 10)

let bodyServer: HTTPServer = {
    let scratch = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array((scratch + "/har-fuzz-body-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed") }
    let directory = String(cString: made)
    let check: InlineHandler = { request in
        guard request.files.count <= bodyLimits.maxFiles,
            request.formFields.reduce(0, { $0 + $1.value.utf8.count }) <= bodyLimits.maxInMemoryBodyBytes,
            request.body.count <= bodyLimits.maxInMemoryBodyBytes
        else { fatalError("over the limits: \(request.files.count) files, \(request.formFields.count) fields") }
        for file in request.files {
            var info = stat()
            guard file.size <= bodyLimits.maxFileBytes, stat(file.path, &info) == 0, Int(info.st_size) == file.size
            else { fatalError("file part \(file.fieldName.debugDescription): size \(file.size), on disk differs") }
        }
        guard let sent = sentBody.withLock({ $0 }) else { return Response(status: 200) }
        if let spooled = request.rawBodyPath, readFile(spooled) != sent {
            fatalError("the spooled body differs from the body sent")
        }
        let type = request.headers["Content-Type"]?.lowercased() ?? ""
        let isForm = type.hasPrefix("multipart/form-data") || type.hasPrefix("application/x-www-form-urlencoded")
        if !isForm, request.rawBodyPath == nil || sent.count <= bodyLimits.maxInMemoryBodyBytes, request.body != sent {
            fatalError("a \(type.debugDescription) body of \(sent.count) bytes arrived as \(request.body.count)")
        }
        return Response(status: 200)
    }
    let echo: InlineHandler = { request in
        for (name, value) in request.cookies {
            guard name.utf8.allSatisfy(Decoding.isTokenByte), value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                fatalError("cookie \(name.debugDescription)=\(value.debugDescription)")
            }
        }
        guard request.query.allSatisfy({ !$0.name.isEmpty }), !request.path.utf8.contains(0) else {
            fatalError("query or path of \(request.rawPath.debugDescription)")
        }
        return Response.text("\(request.cookies.count) \(request.query.count) \(request.parameters.count)")
    }
    var router = Router()
    router.getInline("/echo/*rest", echo)
    router.postInline("/form", check)
    router.postInline("/signed", options: RouteOptions(spoolRawBody: true), check)
    let server = HTTPServer(
        configuration: ServerConfiguration(
            host: "127.0.0.1", port: 0, threadCount: 2, limits: bodyLimits, temporaryDirectory: directory),
        router: router, errorLog: { _ in })
    do { try server.start() } catch { fatalError("server: \(error)") }
    return server
}()

/// Sends one request and returns the status of the answer (0 when none could be read).
func exchange(_ request: [UInt8], shutWriting: Bool = false) -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { fatalError("socket") }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(bodyServer.port).bigEndian)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    if connected != 0 {
        // libFuzzer's timeout alarm (SIGALRM) interrupts system calls: wait for the connection instead.
        guard errno == EINTR else { fatalError("connect: \(errno)") }
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        while poll(&poller, 1, 10_000) < 0 && errno == EINTR {}
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) == 0, failure == 0 else {
            fatalError("connect: \(failure)")
        }
    }
    var sent = 0
    while sent < request.count {
        let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }  // the server may answer 413 and close before reading everything
        sent += n
    }
    if shutWriting { shutdown(fd, Int32(SHUT_WR)) }
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 && errno == EAGAIN { fatalError("no answer within 10 s") }
        if n <= 0 { break }
        answer.append(contentsOf: buffer[..<n])
    }
    // "HTTP/1.1 200 OK"
    guard answer.count >= 12 else { return 0 }
    return Int(String(decoding: answer[9..<12], as: UTF8.self)) ?? 0
}

/// The raw request with "Connection: close" after its first line: a keep-alive connection that the
/// client half-closes may otherwise stay open, answered, until the idle timeout (MHD does not always
/// notice the FIN while the connection waits for the next request), and the exchange waits for the end.
func rawRequest(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return Array(bytes) }
    return Array(bytes[...newline]) + Array("Connection: close\r\n".utf8) + Array(bytes[(newline + 1)...])
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    #if RAW_REQUESTS
        sentBody.withLock { $0 = nil }
        _ = exchange(rawRequest(bytes[...]), shutWriting: true)
        return 0
    #else
        return fuzzBody(bytes)
    #endif
}

func fuzzBody(_ bytes: [UInt8]) -> CInt {
    let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
    var typeLine = Array(bytes[..<newline]).filter { $0 != 13 && $0 != 0 }
    let body = newline < bytes.endIndex ? Array(bytes[(newline + 1)...]) : []
    var route = "/form"
    if typeLine.first == UInt8(ascii: "!") {
        route = "/signed"
        typeLine.removeFirst()
    }
    var request = Array("POST \(route) HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\nContent-Type: ".utf8)
    request += typeLine
    request += Array("\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
    request += body
    sentBody.withLock { $0 = body }
    let status = exchange(request)
    guard [200, 400, 413].contains(status) else { fatalError("status \(status)") }
    return 0
}
