#if canImport(Glibc)
    import Glibc
#endif

/// A password read from standard input, one line. At a terminal the typed characters are not echoed:
/// the terminal's ECHO flag is turned off for that line (termios, as getpass(3) does, without its
/// obsolete interface) and put back afterwards, and the prompt goes to standard error. From a pipe or a
/// file the line is read as it is, with no prompt.
enum TerminalPassword {
    static func read(prompt: String) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return readLine(strippingNewline: true) }
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return nil }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO | ECHONL)
        silent.c_lflag |= tcflag_t(ICANON)
        // TCSAFLUSH: what was typed before the prompt (while echo was on) is not taken as the password.
        // Echo goes off before the prompt shows, so nothing typed after it is ever echoed.
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent) == 0 else { return nil }
        defer {
            _ = tcsetattr(STDIN_FILENO, TCSADRAIN, &saved)
            Log.write("\n", to: STDERR_FILENO)
        }
        Log.write(prompt, to: STDERR_FILENO)
        return readLine(strippingNewline: true)
    }
}
