import Foundation

/// Runs a program to its end from the package root, without the caller's HAR_* variables; its exit
/// status and what it printed on both streams.
func runProgram(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:]) throws -> (
    status: Int32, output: String
) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: TestPaths.packageRoot)
    process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HAR_") }
        .merging(extra) { $1 }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
