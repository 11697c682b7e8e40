internal import CProcess
import Dispatch
import GitbaySupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The termination signals, caught from the moment `trap` returns and handled on a queue of
/// their own: SIGTERM and SIGINT become `ShutdownSignal.request()`, and SIGHUP and SIGQUIT run
/// the cleanups before they end the process. When no command or step handles a request, the
/// cleanups run, then the signal's default action is restored and the signal raised again, so
/// a plain command ends as it always did. SIGHUP and SIGQUIT ignored from the start (`nohup`)
/// stay ignored.
///
/// A C handler writes each signal's number to a pipe, and a read source on a serial queue
/// reads it. libdispatch's own signal sources are not used: on Linux they register a moment
/// after they are resumed, and a signal in between (a Ctrl-C or a `systemctl stop` in the first
/// milliseconds) was ignored or lost; a serial queue also gets a thread of its own when every
/// thread of the shared pool is blocked (a hidden prompt reading the terminal, say).
package final class SignalTrap: @unchecked Sendable {
    /// The signals caught.
    static let caught = [SIGTERM, SIGINT, SIGHUP, SIGQUIT]

    /// Only cancelled, which a dispatch source allows from any thread.
    private let source: any DispatchSourceRead

    private init(source: any DispatchSourceRead) {
        self.source = source
    }

    /// Catches the termination signals for `shutdown`; nil (and the signals keep their
    /// default actions) when no pipe could be made.
    package static func trap(for shutdown: ShutdownSignal) -> SignalTrap? {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        let reading = ends[0]
        let source = DispatchSource.makeReadSource(fileDescriptor: reading, queue: DispatchQueue(label: "gitbay-sync.signals"))
        source.setEventHandler {
            var numbers = [UInt8](repeating: 0, count: 16)
            let count = read(reading, &numbers, numbers.count)
            for number in numbers.prefix(max(count, 0)) { handle(Int32(number), shutdown: shutdown) }
        }
        source.resume()
        for number in caught where stopsGracefully(number) || !ignoredFromStart(number) {
            _ = cprocess_forward_signal(number, ends[1])
        }
        return SignalTrap(source: source)
    }

    /// Stops reading signals (they are still caught, and wait in the pipe).
    package func cancel() {
        source.cancel()
    }

    private static func handle(_ number: Int32, shutdown: ShutdownSignal) {
        if !stopsGracefully(number) || shutdown.request(signal: number) == .unhandled { shutdown.endProcess(by: number) }
    }

    /// SIGTERM and SIGINT ask a command to stop; the others end it.
    private static func stopsGracefully(_ number: Int32) -> Bool {
        number == SIGTERM || number == SIGINT
    }

    /// Whether the process started with `number` ignored.
    private static func ignoredFromStart(_ number: Int32) -> Bool {
        var action = sigaction()
        sigaction(number, nil, &action)
        #if canImport(Glibc)
        let handler = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        #else
        let handler = unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self)
        #endif
        return handler == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}
