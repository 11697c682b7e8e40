#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A small structured logger: constant messages with stable dotted metadata keys
/// (`account.id`, `http.status`). Components receive one and never make their own; the command
/// line makes the one each command uses.
package struct Logger: Sendable {
    package enum Level: Int, Sendable, Comparable, CustomStringConvertible {
        case trace, debug, info, notice, warning, error

        package static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        package var description: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            }
        }
    }

    /// One log record as handed to the sink.
    package struct Record: Sendable {
        package let level: Level
        package let message: String
        package let metadata: [String: String]
    }

    package let minimumLevel: Level
    private let sink: @Sendable (Record) -> Void
    /// The metadata `with` added, outermost first: merged only when a record is logged, since
    /// most loggers made for an account log nothing at the level set. Pairs, not a dictionary:
    /// a logger is made for each account, and a dictionary hashes its keys as it is made.
    private let layers: [(key: String, value: String)]

    package init(minimumLevel: Level, sink: @escaping @Sendable (Record) -> Void) {
        self.minimumLevel = minimumLevel
        self.sink = sink
        self.layers = []
    }

    private init(minimumLevel: Level, sink: @escaping @Sendable (Record) -> Void, layers: [(key: String, value: String)]) {
        self.minimumLevel = minimumLevel
        self.sink = sink
        self.layers = layers
    }

    /// A logger that drops everything.
    package static let disabled = Logger(minimumLevel: .error) { _ in }

    /// A copy that adds `metadata` to every record; a key given again here, or to `log`, wins.
    package func with(_ metadata: KeyValuePairs<String, String>) -> Logger {
        var layers = layers
        layers.reserveCapacity(layers.count + metadata.count)
        for (key, value) in metadata { layers.append((key, value)) }
        return Logger(minimumLevel: minimumLevel, sink: sink, layers: layers)
    }

    /// Records a message at `level`; below the minimum level, the metadata is not even built.
    package func log(_ level: Level, _ message: String, _ metadata: @autoclosure () -> [String: String] = [:]) {
        guard level >= minimumLevel else { return }
        var merged: [String: String] = [:]
        for (key, value) in layers { merged[key] = value }
        merged.merge(metadata()) { $1 }
        sink(Record(level: level, message: message, metadata: merged))
    }

    package func debug(_ message: String, _ metadata: @autoclosure () -> [String: String] = [:]) { log(.debug, message, metadata()) }
    package func info(_ message: String, _ metadata: @autoclosure () -> [String: String] = [:]) { log(.info, message, metadata()) }
    package func warning(_ message: String, _ metadata: @autoclosure () -> [String: String] = [:]) { log(.warning, message, metadata()) }

    /// Renders a record as one line: `level message key=value ...`, keys sorted, the values
    /// (an account's name, say) escaped as outside text.
    package static func format(_ record: Record) -> String {
        var line = "\(record.level) \(record.message)"
        for key in record.metadata.keys.sorted() {
            line += " \(key)=\(escaped: record.metadata[key]!)"
        }
        return line
    }
}
