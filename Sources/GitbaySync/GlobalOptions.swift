/// Options every command takes, as parsed.
package struct GlobalOptions: Sendable, Equatable {
    /// `--db PATH`.
    package var databasePath: String?
    /// `--json`: machine-readable output on stdout.
    package var json = false
    /// `--verbose` / `-v`, repeatable.
    package var verbosity = 0

    package init(databasePath: String? = nil, json: Bool = false, verbosity: Int = 0) {
        self.databasePath = databasePath
        self.json = json
        self.verbosity = verbosity
    }

    /// The options every command takes, as the help describes them.
    static let specs: [CommandSpec.Option] = [
        .init(name: "--db", valueName: "PATH", help: "The state database (default: $GITBAY_SYNC_DB, else $XDG_STATE_HOME/gitbay-sync/state.db)."),
        .init(name: "--json", valueName: nil, help: "Print machine-readable JSON on stdout (shapes in docs/reference.md)."),
        .init(name: "--verbose", valueName: nil, help: "Say more on stderr; -v, repeat for more (-vv)."),
        .init(name: "--help", valueName: nil, help: "Show help for gitbay-sync or a command (-h)."),
        .init(name: "--version", valueName: nil, help: "Show the version."),
    ]

    /// The global options that are flags: none of them takes a value.
    static let flagNames: Set<String> = Set(specs.filter { $0.valueName == nil }.map(\.name))
}
