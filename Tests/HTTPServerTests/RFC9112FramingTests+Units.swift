import Foundation
import Testing

@testable import HTTPServer

extension RFC9112FramingTests {
    // MARK: Unit checks of the pieces

    @Test func transferCodingListsAreReadAsOneList() {
        #expect(RequestFraming.checkTransferCodings(["chunked"]) == nil)
        #expect(RequestFraming.checkTransferCodings(["Chunked"]) == nil)
        #expect(RequestFraming.checkTransferCodings([" chunked ,"]) == nil)
        #expect(RequestFraming.checkTransferCodings(["gzip, chunked"]) == .unknownTransferCoding)
        #expect(RequestFraming.checkTransferCodings(["gzip", "chunked"]) == .unknownTransferCoding)
        #expect(RequestFraming.checkTransferCodings(["chunked", "gzip"]) == .chunkedNotFinal)
        #expect(RequestFraming.checkTransferCodings([""]) == .chunkedNotFinal)
    }

    /// The token bytes' two masks against RFC 9110 §5.6.2's tchar, for all 256 bytes: a field name
    /// with any other byte is refused, so a wrong bit would refuse a valid name or let a bad one in.
    @Test func tokenBytesAreExactlyRFC9110sTchar() {
        let marks = Set("!#$%&'*+-.^_`|~".utf8)
        for value in 0...255 {
            let byte = UInt8(value)
            let isLetter = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            let expected = isLetter || (0x30...0x39).contains(byte) || marks.contains(byte)
            #expect(Decoding.isTokenByte(byte) == expected, "byte \(value)")
        }
    }

    @Test func absoluteFormBecomesOriginForm() {
        func origin(_ text: String) -> String? {
            RequestFraming.originForm(ofAbsolute: Array(text.utf8)).map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(origin("/a") == nil)
        #expect(origin("http://h/a?b") == "/a?b")
        #expect(origin("HTTPS://h:8080/") == "/")
        #expect(origin("http://h") == "/")
        #expect(origin("http://h?q=1") == "/?q=1")
        #expect(origin("http:///a") == nil)
        #expect(origin("ftp://h/a") == nil)
        #expect(origin("*") == nil)
    }

    @Test func microhttpdErrorLinesAreCountedByStatus() {
        #expect(
            RequestRefusal.fromLibraryMessage(
                "Error processing request (HTTP response code is 431 ('<html>...</html>')). Closing connection.")
                == .libraryFieldsTooLarge)
        #expect(
            RequestRefusal.fromLibraryMessage("Error processing request (HTTP response code is 400")
                == .libraryBadRequest)
        #expect(RequestRefusal.fromLibraryMessage("Failed to parse `Content-Length' header.") == nil)
    }
}
