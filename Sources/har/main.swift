// The process entry point: everything else lives in HeritageApp and the other library targets.
import HeritageApp

#if canImport(Glibc)
    import Glibc
#endif

let status = Command.main(CommandLine.arguments)
// By now the command has finished its orderly stop: requests answered, the store closed (every
// acknowledged report and photo is on disk). `exit` would go on to run the C libraries' exit handlers
// (OpenSSL's and libcurl's global cleanup among them) while a thread of theirs may still be finishing
// a transfer the stop gave up waiting for: CI saw `double free or corruption` there once, after
// "stopped". So the output is flushed and the process ends without them.
fflush(nil)
_exit(Int32(status))
