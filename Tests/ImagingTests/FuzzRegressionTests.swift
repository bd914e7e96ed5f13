// The fuzz harness's inputs as ordinary tests: every seed (Fuzz/corpus/NAME) and every input that ever
// made the harness fail (Fuzz/regressions/NAME, written there by scripts/fuzz) goes through the same code
// with the same checks as in Fuzz/Harnesses/NAME.swift, so a fixed finding stays fixed without libFuzzer.
import Foundation
import Glibc
import Testing

@testable import Imaging

@Suite struct ImagingFuzzRegressionTests {
    func check(_ metadata: ExifMetadata?, _ file: String) {
        guard let metadata else { return }
        #expect((1...8).contains(metadata.orientation), "\(file)")
        if let fix = metadata.gps {
            #expect(fix.latitude.isFinite && fix.longitude.isFinite, "\(file)")
            #expect(abs(fix.latitude) <= 90 && abs(fix.longitude) <= 180, "\(file)")
            #expect(fix.altitude.map { $0.isFinite } ?? true, "\(file)")
            if let time = fix.capturedAt {
                // "YYYY-MM-DDTHH:MM:SS", "Z" when in UTC; fields in range.
                let shape = #/(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\dZ?/#
                #expect(time.wholeMatch(of: shape) != nil, "\(file): \(time)")
            }
        }
    }

    /// Each input as a TIFF block and as a whole image file, as the harness reads it.
    @Test func exifBlocksAndContainers() throws {
        let inputs = try fuzzInputs("exif")
        #expect(inputs.count >= 5)
        let path = NSTemporaryDirectory() + "/har-exif-fuzz-\(getpid())"
        defer { unlink(path) }
        var withGPS = 0
        for (file, bytes) in inputs {
            check(ExifMetadata(tiff: bytes), file)
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
                Issue.record("cannot write \(path)")
                continue
            }
            guard let reader = FileReader(path: path) else {
                Issue.record("cannot read \(path)")
                continue
            }
            if let block = Containers.exif(of: reader) {
                let metadata = ExifMetadata(tiff: block)
                check(metadata, file)
                if metadata?.gps != nil { withGPS += 1 }
            }
        }
        #expect(withGPS >= 3)  // the JPEG, PNG and WebP seeds carry a GPS fix
    }
}
