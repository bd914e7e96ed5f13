import Foundation
import TestSupport
import Testing

@testable import HeritageApp

/// `har sites import` shows its progress on a terminal (standard error, only when it is one): the real
/// binary run under a pseudo-terminal, and with its standard error a pipe.
@Suite struct SiteImportProgressTests {
    /// Runs `har ARGUMENTS` (after the mode) and prints what it showed, exiting with its status. Mode
    /// `pty`: on a pseudo-terminal (python's `pty`), as an operator at a terminal; everything the terminal
    /// showed (standard output and error alike) is printed. Mode `pipe`: its standard output and error
    /// are pipes, printed on this script's own.
    static let run = #"""
        import os, pty, subprocess, sys
        if sys.argv[1] == "pipe":
            done = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            sys.stdout.write(done.stdout.decode(errors="replace"))
            sys.stderr.write(done.stderr.decode(errors="replace"))
            sys.exit(done.returncode)
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(sys.argv[2], sys.argv[2:])
        shown = b""
        while True:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break  # EIO: the program has ended and the terminal is closed
            if not chunk:
                break
            shown += chunk
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(shown.decode(errors="replace"))
        sys.exit(os.waitstatus_to_exitcode(status))
        """#

    /// SITE-01: importing a file of a few thousand features at a terminal shows how many features have
    /// been read and the share of the file, on one line rewritten in place; with standard error a pipe
    /// (a script, a cron job's log) nothing of it is written, and the summary is the same.
    @Test(arguments: StoreBackend.all) func site01ImportShowsProgressOnlyAtATerminal(_ backend: StoreBackend)
        async throws
    {
        let scene = try SiteCommandScene(backend)
        let features = (1...3_000).map { number in
            GeoJSONText.point(
                "P-\(number)", "Site \(number)", lat: 50 + Double(number) / 10_000, lon: -1 - Double(number) / 10_000)
        }
        let path = try scene.file("register.geojson", GeoJSONText.collection(features))
        let environment = harEnvironment(scene.environment)

        let terminal = try await runProgram(
            "/usr/bin/python3", ["-c", Self.run, "pty", TestPaths.harExecutable, "sites", "import", path],
            environment: environment)
        #expect(terminal.status == 0, "\(terminal.stdout) \(terminal.stderr)")
        // The first batch's count is always shown (the line is rewritten at most a few times a second).
        #expect(terminal.stdout.contains("\r\(SiteImport.batchSize) features read, "), "\(terminal.stdout)")
        #expect(terminal.stdout.contains("% of the file"))
        #expect(terminal.stdout.contains("3000 added, 0 updated, 0 unchanged"))

        let piped = try await runProgram(
            "/usr/bin/python3", ["-c", Self.run, "pipe", TestPaths.harExecutable, "sites", "import", path],
            environment: environment)
        #expect(piped.status == 0, "\(piped.stdout) \(piped.stderr)")
        #expect(!piped.stderr.contains("features read") && !piped.stdout.contains("features read"), "\(piped.stderr)")
        #expect(piped.stdout.contains("0 added, 0 updated, 3000 unchanged"), "\(piped.stdout)")
        #expect(try scene.register().count == 3_000)
    }
}
