import GitbayState

/// Colour in text output: on a terminal only, and never when `NO_COLOR` is set to anything
/// (https://no-color.org) or under `--json`. Colour goes around text already padded and
/// escaped, so it changes neither a column's width nor what outside text shows.
struct TextStyle: Sendable, Equatable {
    /// Whether text is painted at all.
    let colours: Bool

    static let plain = TextStyle(colours: false)

    /// The colours used, as SGR parameters.
    enum Colour: String, Sendable {
        case green = "32"
        case yellow = "33"
        case red = "31"
        case dim = "2"
    }

    /// Colour for stdout when it is a terminal, `NO_COLOR` is unset or empty, and not `json`.
    static func resolve(environment: [String: String], outputIsTerminal: Bool, json: Bool) -> TextStyle {
        TextStyle(colours: outputIsTerminal && !json && (environment["NO_COLOR"] ?? "").isEmpty)
    }

    /// `text` in `colour` (as it is with no colour, or when not painting).
    func paint(_ text: String, _ colour: Colour?) -> String {
        guard colours, let colour, !text.isEmpty else { return text }
        return "\u{1B}[\(colour.rawValue)m\(text)\u{1B}[0m"
    }

    /// An account's condition word, painted: registered green; yellow what passes on its own
    /// or with a step of the user's own choosing (not reconciled yet, no device token, a
    /// failure the runs retry); red what waits for the user (`needsAttention`); the rest dim.
    func condition(_ condition: AccountCondition, _ text: String? = nil) -> String {
        let colour: Colour? =
            switch condition {
            case .registered: .green
            case .pending, .noDeviceToken, .error: .yellow
            case .authFailed, .denied, .pushDisabled: .red
            case .shadowed, .paused, .removing: .dim
            }
        return paint(text ?? condition.rawValue, colour)
    }
}

extension CommandRunner {
    /// The style of this command's text on stdout.
    var textStyle: TextStyle {
        TextStyle.resolve(environment: context.environment, outputIsTerminal: context.console.outputIsTerminal, json: global.json)
    }

    /// The width this command's text on stdout is wrapped to (`TextLayout.fitted`): on a
    /// terminal, `COLUMNS` or the terminal's; nil off one, where whole lines are read.
    var textWidth: Int? {
        context.console.outputIsTerminal && !global.json ? context.width(of: 1) : nil
    }

    /// The width this command's lines on stderr are wrapped to: on a terminal, as `textWidth`;
    /// nil off one (a log, the journal), where whole lines are read.
    var errorWidth: Int? {
        context.console.errorIsTerminal ? context.width(of: 2) : nil
    }
}
