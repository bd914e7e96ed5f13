// libFuzzer harness: the EXIF reading of an uploaded photo. The input is read twice: as a TIFF block
// (what `ExifMetadata` gets from a container) and as a whole image file (JPEG, PNG or WebP, written to a
// scratch file for `FileReader`, whose EXIF block is then read the same way). Checked on every input:
// an orientation is 1-8; a GPS fix has finite coordinates within ±90/±180 and a capture time, when it
// has one, of the shape "YYYY-MM-DDTHH:MM:SS" (UTC with "Z", else local) with month, day and time in range.
import Glibc

let exifScratchPath: String = {
    let scratch = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array((scratch + "/har-fuzz-exif-XXXXXX").utf8CString)
    let fd = mkstemp(&template)
    guard fd >= 0 else { fatalError("mkstemp failed") }
    close(fd)
    return String(cString: template)
}()

/// "YYYY-MM-DDTHH:MM:SS" or the same with "Z", each field in its range.
func isCaptureTime(_ text: String) -> Bool {
    var bytes = Array(text.utf8)
    if bytes.last == UInt8(ascii: "Z") { bytes.removeLast() }
    guard bytes.count == 19 else { return false }
    for (index, byte) in bytes.enumerated() {
        let expected: UInt8? = [4: "-", 7: "-", 10: "T", 13: ":", 16: ":"][index].map { UInt8(ascii: $0) }
        if let expected {
            guard byte == expected else { return false }
        } else {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return false }
        }
    }
    func field(_ start: Int, _ count: Int) -> Int {
        bytes[start..<(start + count)].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }
    return (1...12).contains(field(5, 2)) && (1...31).contains(field(8, 2)) && field(11, 2) < 24 && field(14, 2) < 60
        && field(17, 2) < 60
}

func checkExif(_ metadata: ExifMetadata?, _ what: String) {
    guard let metadata else { return }
    guard (1...8).contains(metadata.orientation) else { fatalError("\(what): orientation \(metadata.orientation)") }
    if let fix = metadata.gps {
        guard fix.latitude.isFinite, fix.longitude.isFinite, abs(fix.latitude) <= 90, abs(fix.longitude) <= 180,
            fix.altitude.map({ $0.isFinite }) ?? true, fix.capturedAt.map(isCaptureTime) ?? true
        else { fatalError("\(what): \(fix)") }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExif(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    checkExif(ExifMetadata(tiff: bytes), "TIFF block")

    let fd = open(exifScratchPath, O_WRONLY | O_TRUNC)
    guard fd >= 0 else { fatalError("cannot write the scratch file") }
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    guard written == bytes.count else { fatalError("short write") }
    guard let reader = FileReader(path: exifScratchPath) else { fatalError("cannot read the scratch file") }
    if let block = Containers.exif(of: reader) {
        guard block.count <= Containers.maximumExifSize + 8 else { fatalError("EXIF block of \(block.count) bytes") }
        checkExif(ExifMetadata(tiff: block), "container")
    }
    return 0
}
