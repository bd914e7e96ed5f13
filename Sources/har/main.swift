// The process entry point: everything else lives in HeritageApp and the other library targets.
import HeritageApp

#if canImport(Glibc)
import Glibc
#endif

exit(Command.main(CommandLine.arguments))
