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
