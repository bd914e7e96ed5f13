// The fuzz harness's inputs as ordinary tests: every seed (Fuzz/corpus/NAME) and every input that ever
// made the harness fail (Fuzz/regressions/NAME, written there by scripts/fuzz) goes through the same code
// with the same checks as in Fuzz/Harnesses/NAME.swift, so a fixed finding stays fixed without libFuzzer.
import Foundation
import Testing

@testable import HeritageApp

@Suite struct AddressFuzzRegressionTests {
    @Test func acceptedAddressesArePrintableASCIIWithAnAt() throws {
        let inputs = try fuzzInputs("address")
        #expect(inputs.count >= 10)
        var valid = 0
        for (file, bytes) in inputs {
            let address = String(decoding: bytes, as: UTF8.self)
            guard AddressSpec.isValid(address) else { continue }
            valid += 1
            let utf8 = Array(address.utf8)
            #expect((1...AddressSpec.maximumLength).contains(utf8.count), "\(file)")
            #expect(utf8.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 }, "\(file)")
            let at = utf8.lastIndex(of: UInt8(ascii: "@"))
            #expect(at.map { $0 > 0 && $0 < utf8.count - 1 } == true, "\(file)")
        }
        #expect(valid >= 5)  // the seeds are the browser test's cases, valid and not
    }
}
