import Foundation

/// The seeds and past findings of one fuzz harness (Fuzz/corpus/NAME, Fuzz/regressions/NAME), by file:
/// each test target's FuzzRegressionTests runs them through the harness's code with its checks.
public func fuzzInputs(_ name: String) throws -> [(file: String, bytes: [UInt8])] {
    var inputs: [(file: String, bytes: [UInt8])] = []
    for folder in ["Fuzz/corpus/", "Fuzz/regressions/"] {
        let directory = TestPaths.packageRoot + "/" + folder + name
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for file in files.sorted() {
            let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))
            inputs.append((folder + name + "/" + file, Array(data)))
        }
    }
    return inputs
}
