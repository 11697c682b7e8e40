import GitbaySupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How wide help and usage lines may be: `COLUMNS` when it holds a number, else the width of
/// the terminal they are written to, else 80.
enum TerminalWidth {
    static func resolve(environment: [String: String], terminalColumns: Int?) -> Int {
        if let text = environment["COLUMNS"], let columns = Int(text.trimmingWhitespace()), columns > 0 { return columns }
        if let terminalColumns, terminalColumns > 0 { return terminalColumns }
        return TextLayout.defaultWidth
    }

    /// The width of the terminal `descriptor` writes to; nil when it is not a terminal or does
    /// not say.
    static func columns(of descriptor: Int32) -> Int? {
        guard isatty(descriptor) == 1 else { return nil }
        var size = winsize()
        #if canImport(Glibc)
        let result = ioctl(descriptor, UInt(TIOCGWINSZ), &size)
        #else
        let result = ioctl(descriptor, TIOCGWINSZ, &size)
        #endif
        guard result == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

extension CLIContext {
    /// The width for lines written to `descriptor` (1 for help, 2 for a usage error).
    func width(of descriptor: Int32) -> Int {
        TerminalWidth.resolve(environment: environment, terminalColumns: terminalColumns(descriptor))
    }
}
