// Turns a Response into an MHD response: bytes or pieces sent from where they are (kept alive until MHD
// frees the response) or a file streamed from its descriptor, headers checked so nothing a handler
// echoes can split the response, and the security headers added to every answer.
import CMicroHTTPD
import Glibc
import Synchronization

extension HTTPServer {
    /// The MHD response, the status to send it with, and its body size; nil if MHD could not allocate.
    func makeMHDResponse(_ response: Response, request: RequestState) -> (OpaquePointer, Int, Int)? {
        var response = response
        var created: OpaquePointer?
        var bytes = 0
        if case .file(let path, let size) = response.body {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if response.removesFileOnceOpened { unlink(path) }  // the descriptor keeps the bytes
            if fd >= 0 {
                created = MHD_create_response_from_fd_at_offset64(
                    UInt64(max(0, size)), fd, UInt64(max(0, response.fileOffset)))
                if created == nil { close(fd) }  // MHD closes it only once it owns it
                bytes = size
            } else {
                logError("cannot open \(path) for \(request.method) \(request.path): errno \(errno)")
                response = router.errorPage(404, request.summary)
            }
        }
        if created == nil, case .bytes(let content) = response.body, !content.isEmpty {
            created = Self.bytesResponse(content)
            bytes = content.count
        }
        if created == nil, case .pieces(let pieces) = response.body, pieces.count > 0 {
            // Past the vector's bound (a list of thousands of rows): joined, as one array.
            created = Self.piecesResponse(pieces) ?? Self.bytesResponse(pieces.joined())
            bytes = pieces.count
        }
        if created == nil {
            bytes = 0
            created = MHD_create_response_from_buffer(0, nil, MHD_ResponseMemoryMode.RESPMEM_PERSISTENT)
        }
        guard let created else { return nil }
        // Which security headers the handler's own (added) headers override. Compared in place: a Set
        // of lowercased copies cost an allocation per header per response.
        var overridden = [Bool](repeating: false, count: securityHeaders.count)
        for (name, value) in response.headers {
            guard !HTTPServer.headersMHDOwns.contains(where: { Headers.namesEqual($0, name) }) else { continue }
            guard !name.isEmpty, name.utf8.allSatisfy(Decoding.isTokenByte), Decoding.isSafeHeaderValue(value) else {
                logError("dropped an unsafe response header for \(request.method) \(request.path)")
                continue
            }
            guard MHD_add_response_header(created, name, value) == MHD_Result.YES else { continue }
            for index in securityHeaders.indices where Headers.namesEqual(securityHeaders[index].name, name) {
                overridden[index] = true
            }
        }
        for index in securityHeaderCStrings.indices where !overridden[index] {
            securityHeaderCStrings[index].name.withUnsafeBufferPointer { name in
                securityHeaderCStrings[index].value.withUnsafeBufferPointer { value in
                    _ = MHD_add_response_header(created, name.baseAddress, value.baseAddress)
                }
            }
        }
        let status = (100...599).contains(response.status) ? response.status : 500
        return (created, status, bytes)
    }

    /// An MHD response sending `content` from the array itself, which a retained box keeps alive until
    /// MHD frees the response (harReleaseBody): no copy of the page (RESPMEM_MUST_COPY copied every
    /// body into a malloc of its own; callgrind: ~10,000 instructions for a 10 KB page, 57 KB for the
    /// report list). Nil if MHD could not allocate.
    static func bytesResponse(_ content: [UInt8]) -> OpaquePointer? {
        let box = ResponseBodyBox(content)
        let retained = Unmanaged.passRetained(box)
        let created = box.bytes.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer_with_free_callback_cls(
                buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), harReleaseBody,
                retained.toOpaque())
        }
        if created == nil { retained.release() }
        return created
    }

    /// The most entries an I/O vector given to MHD may have: the kernel's `IOV_MAX`. libmicrohttpd
    /// 0.9.75 sends a longer one with one `sendmsg` that the kernel refuses, never sends the body, and
    /// aborts when the response is freed (`CompressionTests.bodiesInPiecesGoOutAsTheirPartsJoined`
    /// found it at 1,025 entries).
    static let maximumVectorEntries = 1_024

    /// An MHD response sending `pieces` from where they are (an I/O vector: the parts with the joiner
    /// between them), kept alive by a retained box until MHD frees the response (harReleasePieces).
    /// Empty pieces are left out of the vector. Nil past `maximumVectorEntries`, or if MHD could not
    /// allocate.
    static func piecesResponse(_ pieces: ResponsePieces) -> OpaquePointer? {
        let nonEmpty = pieces.parts.reduce(0) { $0 + ($1.isEmpty ? 0 : 1) }
        let joiners = pieces.joiner.isEmpty ? 0 : max(0, pieces.parts.count - 1)
        guard nonEmpty + joiners <= maximumVectorEntries else { return nil }
        let box = ResponsePiecesBox(pieces)
        let retained = Unmanaged.passRetained(box)
        var vector: [MHD_IoVec] = []
        vector.reserveCapacity(pieces.parts.count * 2)
        let joiner = box.pieces.joiner.withUnsafeBytes { $0 }
        for (index, part) in box.pieces.parts.enumerated() {
            if index > 0, joiner.count > 0 {
                vector.append(MHD_IoVec(iov_base: joiner.baseAddress, iov_len: joiner.count))
            }
            let bytes = part.withUnsafeBytes { $0 }
            if bytes.count > 0 { vector.append(MHD_IoVec(iov_base: bytes.baseAddress, iov_len: bytes.count)) }
        }
        let created = vector.withUnsafeBufferPointer { vector in
            MHD_create_response_from_iovec(
                vector.baseAddress, UInt32(vector.count), harReleasePieces, retained.toOpaque())
        }
        if created == nil { retained.release() }
        return created
    }

    /// Framing headers are MHD's business; a handler's copy would contradict the real body or
    /// connection state.
    static let headersMHDOwns = ["content-length", "transfer-encoding", "connection", "date"]
}

/// A response body that MHD sends in place. The array is never mutated after it is boxed, so its
/// storage, and the pointer MHD was given to it, stay where they are until the box is released.
final class ResponseBodyBox {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// Pieces that MHD sends in place: the arrays are never mutated after they are boxed, so their
/// storage, which the I/O vector points into, stays where it is until the box is released.
final class ResponsePiecesBox {
    let pieces: ResponsePieces
    init(_ pieces: ResponsePieces) { self.pieces = pieces }
}

/// MHD_ContentReaderFreeCallback of pieces sent in place (`piecesResponse`).
func harReleasePieces(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    Unmanaged<ResponsePiecesBox>.fromOpaque(cls).release()
}

/// MHD_ContentReaderFreeCallback of a body sent in place: MHD is done with it (on any of its threads).
func harReleaseBody(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    Unmanaged<ResponseBodyBox>.fromOpaque(cls).release()
}

/// A finished MHD response kept for sending again. MHD reference-counts responses and lets one be
/// queued on any number of connections, from any thread; building one (copying the body, seven
/// header lines of three mallocs each, freeing it all again) was most of the cost of a static file.
/// Built by the first server that sends it and kept for that server only, since the security headers
/// in it are that server's.
///
/// Built once, then only read: published through an atomic, so that the threads sending it (every MHD
/// thread, for a busy static file or 304) take no lock. A lock here put them to sleep behind each other
/// (`ReadMostly` says why). A thread that finds it being built by another answers with a fresh response.
final class ReusableResponse: @unchecked Sendable {
    private struct Built {
        var server: Int
        var response: OpaquePointer
        var bytes: Int
    }
    private static let empty = 0
    private static let building = 1
    private static let ready = 2
    /// `empty`, then `building` for the one thread that builds, then `ready` for good.
    private let phase = Atomic<Int>(0)
    /// Written once by the building thread before `phase` is `ready` (releasing), read only after
    /// seeing `ready` (acquiring). MHD's own lock guards the response's reference count.
    private var built: Built?

    init() {}

    deinit {
        // Drops our reference; MHD frees it once the last connection sending it is done.
        if phase.load(ordering: .acquiring) == Self.ready, let built { MHD_destroy_response(built.response) }
    }

    /// The kept response for `server`, building it with `make` the first time. Nil when another
    /// server already owns it, while another thread builds it, or when `make` fails: the caller builds
    /// a fresh response instead.
    func response(for server: Int, make: () -> (OpaquePointer, Int, Int)?) -> (OpaquePointer, Int)? {
        if phase.load(ordering: .acquiring) == Self.ready {
            guard let built, built.server == server else { return nil }
            return (built.response, built.bytes)
        }
        guard phase.compareExchange(expected: Self.empty, desired: Self.building, ordering: .acquiring).exchanged
        else { return nil }
        guard let (pointer, _, bytes) = make() else {
            phase.store(Self.empty, ordering: .releasing)
            return nil
        }
        built = Built(server: server, response: pointer, bytes: bytes)
        phase.store(Self.ready, ordering: .releasing)
        return (pointer, bytes)
    }
}

/// Distinguishes servers for ReusableResponse.
let serverInstanceCounter = Atomic<Int>(0)
