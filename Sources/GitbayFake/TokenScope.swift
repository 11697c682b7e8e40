/// What an API token may do: `full` runs any command, `read` only read-only ones.
public enum TokenScope: String, Sendable, CustomStringConvertible {
    case full
    case read

    public var description: String { rawValue }
}
