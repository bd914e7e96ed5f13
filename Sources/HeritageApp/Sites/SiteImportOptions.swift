/// Which of a file's own property (or CSV column) names hold what a site needs: `har sites import`'s
/// `--ref-field`, `--name-field`, … options, each replacing its defaults. Names match whatever their
/// letters' case.
struct SiteImportOptions: Sendable, Equatable {
    var referenceFields = ["reference", "ref", "list_entry", "listentry"]
    var nameFields = ["name"]
    var designationFields = ["designation"]
    var gradeFields = ["grade"]
    /// CSV only (a GeoJSON feature's point is its geometry).
    var latitudeFields = ["lat", "latitude", "y"]
    var longitudeFields = ["lon", "lng", "longitude", "long", "x"]
    /// Nil: by the file's extension, else its first byte (`{` is GeoJSON).
    var format: SiteFileFormat?

    enum Failure: Error, Equatable, CustomStringConvertible {
        case usage(String)
        var description: String {
            switch self {
            case .usage(let message): message
            }
        }
    }

    /// The options among `arguments` and the file named (the one word that is not an option).
    static func parse(_ arguments: [String]) throws -> (options: SiteImportOptions, file: String) {
        var options = SiteImportOptions()
        var file: String?
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            guard word.hasPrefix("--") else {
                guard file == nil else { throw Failure.usage("one file at a time (\(word)?)") }
                file = word
                index += 1
                continue
            }
            guard index + 1 < arguments.count, !arguments[index + 1].isEmpty else {
                throw Failure.usage("\(word) needs a value")
            }
            let value = arguments[index + 1]
            switch word {
            case "--ref-field": options.referenceFields = [value]
            case "--name-field": options.nameFields = [value]
            case "--designation-field": options.designationFields = [value]
            case "--grade-field": options.gradeFields = [value]
            case "--lat-field": options.latitudeFields = [value]
            case "--lon-field": options.longitudeFields = [value]
            case "--format":
                guard let format = SiteFileFormat(rawValue: value) else {
                    throw Failure.usage("--format is geojson or csv")
                }
                options.format = format
            default: throw Failure.usage("unknown option \(word)")
            }
            index += 2
        }
        guard let file else { throw Failure.usage("name the file to import") }
        return (options, file)
    }
}

enum SiteFileFormat: String, Sendable, Equatable {
    case geojson, csv
}
