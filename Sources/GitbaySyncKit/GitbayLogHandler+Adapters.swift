#if canImport(os)
import os
#endif

extension GitbayLogRecord {
    /// The record as one line: its message, then its fields as `name=value`, sorted by name
    /// (`registration.remove account.name=ann@gitbay.org device.id=7`). What an adapter that
    /// takes plain text writes.
    public var line: String {
        ([message] + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
    }
}

#if canImport(os)
// Compiled by an Apple build only, which has not been tried: no Apple SDK builds this package.
extension GitbayLogHandler {
    /// A handler writing to the app's `os.Logger`: the message public (a constant of the
    /// engine's), the fields private (they name accounts and servers), at the nearest
    /// `OSLogType` (`warning` as `.error`, having none of its own).
    public static func osLogger(_ logger: os.Logger, minimumLevel: GitbayLogRecord.Level = .info) -> GitbayLogHandler {
        GitbayLogHandler(minimumLevel: minimumLevel) { record in
            let fields = record.fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            logger.log(level: record.level.osLogType, "\(record.message, privacy: .public) \(fields, privacy: .private)")
        }
    }
}

extension GitbayLogRecord.Level {
    /// The `OSLogType` nearest to this level.
    var osLogType: OSLogType {
        switch self {
        case .trace, .debug: .debug
        case .info: .info
        case .notice: .default
        case .warning, .error: .error
        }
    }
}
#endif
