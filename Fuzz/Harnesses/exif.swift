// libFuzzer harness: the EXIF reading of an uploaded photo. The input is read twice: as a TIFF block
// (what `ExifMetadata` gets from a container) and as a whole image file (JPEG, PNG or WebP, written to a
// scratch file for `FileReader`, whose EXIF block is then read the same way). Checked on every input:
// an orientation is 1-8; a GPS fix has finite coordinates within ±90/±180.
import Glibc

let exifScratchPath: String = {
    var template = Array("/tmp/har-fuzz-exif-XXXXXX".utf8CString)
    let fd = mkstemp(&template)
    guard fd >= 0 else { fatalError("mkstemp failed") }
    close(fd)
    return String(cString: template)
}()

func checkExif(_ metadata: ExifMetadata?, _ what: String) {
    guard let metadata else { return }
    guard (1...8).contains(metadata.orientation) else { fatalError("\(what): orientation \(metadata.orientation)") }
    if let fix = metadata.gps {
        guard fix.latitude.isFinite, fix.longitude.isFinite, abs(fix.latitude) <= 90, abs(fix.longitude) <= 180,
            fix.altitude.map({ $0.isFinite }) ?? true
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
