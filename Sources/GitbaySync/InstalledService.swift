import GitbaySupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What is installed in the unit folder (or `~/Library/LaunchAgents`), read back for `doctor`:
/// which files are there, whether `systemctl enable` linked them, and what command line,
/// environment and period they give. Reads only; no service manager is asked.
struct InstalledService: Sendable {
    /// One of the files `service install` writes, as found.
    struct Unit: Sendable {
        let name: String
        let path: String
        /// The file's text; nil when there is no such file (or it cannot be read).
        let contents: String?
        /// For systemd: the target whose `*.wants` folder holds a link to it (`systemctl enable`).
        let wantedBy: String?
        /// Whether that link is there.
        let enabled: Bool

        var isPresent: Bool { contents != nil }
        var isGenerated: Bool { contents.map(ServiceUnits.isGenerated) ?? false }
    }

    let platform: ServiceUnits.Platform
    let folder: UnitFolder
    /// The service (or agent) first, then for systemd the timer.
    let units: [Unit]

    static func read(_ platform: ServiceUnits.Platform, folder: UnitFolder) -> InstalledService {
        let units = ServiceUnits.fileNames(platform).map { name, wantedBy in
            let path = folder.filePath(name)
            let link = wantedBy.map { folder.path + "/\($0).wants/" + name }
            return Unit(
                name: name, path: path, contents: UnitFolder.readText(path), wantedBy: wantedBy,
                enabled: link.map { access($0, F_OK) == 0 } ?? true
            )
        }
        return InstalledService(platform: platform, folder: folder, units: units)
    }

    /// The file holding the command line: `gitbay-sync.service`, or the launchd agent.
    var service: Unit { units[0] }

    var isInstalled: Bool { units.allSatisfy(\.isPresent) }
    var isAbsent: Bool { units.allSatisfy { !$0.isPresent } }

    /// The command line the service runs, program first; nil when it cannot be read.
    var arguments: [String]? {
        guard let contents = service.contents else { return nil }
        switch platform {
        case .systemd:
            guard let line = Self.systemdValues("ExecStart", in: contents).last else { return nil }
            var words = SystemdWords.split(line, expandingDollars: true)
            // Prefixes that change how systemd runs the program are not part of its path.
            if let first = words.first {
                let program = String(first.drop { "-@:+!".contains($0) })
                words[0] = program
            }
            return words.isEmpty ? nil : words
        case .launchd:
            return PlistText.strings(after: "ProgramArguments", in: contents)
        }
    }

    /// The variables the service manager sets for the run.
    var environment: [String: String] {
        guard let contents = service.contents else { return [:] }
        var variables: [String: String] = [:]
        switch platform {
        case .systemd:
            for line in Self.systemdValues("Environment", in: contents) {
                for word in SystemdWords.split(line, expandingDollars: false) {
                    guard let equals = word.firstIndex(of: "=") else { continue }
                    variables[String(word[..<equals])] = String(word[word.index(after: equals)...])
                }
            }
        case .launchd:
            let pairs = PlistText.strings(after: "EnvironmentVariables", in: contents, container: "dict", keysToo: true) ?? []
            for index in stride(from: 0, to: pairs.count - 1, by: 2) { variables[pairs[index]] = pairs[index + 1] }
        }
        return variables
    }

    /// The timer's period: `OnUnitActiveSec=` of the timer, or the agent's `StartInterval`.
    var period: Duration? {
        switch platform {
        case .systemd:
            guard units.count > 1, let contents = units[1].contents,
                let value = Self.systemdValues("OnUnitActiveSec", in: contents).last
            else { return nil }
            return try? IntervalParser.parse(value.trimmingWhitespace())
        case .launchd:
            guard let contents = service.contents, let range = contents.firstRange(of: "<key>StartInterval</key>") else { return nil }
            let rest = contents[range.upperBound...]
            guard let open = rest.firstRange(of: "<integer>"), let close = rest.firstRange(of: "</integer>"), open.upperBound <= close.lowerBound,
                let seconds = Int64(String(rest[open.upperBound..<close.lowerBound]).trimmingWhitespace()), seconds > 0
            else { return nil }
            return .seconds(seconds)
        }
    }

    /// The values of `key=` lines in a unit file, in order (an empty value resets the list, as
    /// systemd reads it).
    static func systemdValues(_ key: String, in contents: String) -> [String] {
        var values: [String] = []
        for line in contents.split(separator: "\n", omittingEmptySubsequences: true) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard !trimmed.hasPrefix("#"), !trimmed.hasPrefix(";"), let equals = trimmed.firstIndex(of: "=") else { continue }
            guard String(trimmed[..<equals]).trimmingWhitespace() == key else { continue }
            let value = String(trimmed[trimmed.index(after: equals)...]).trimmingWhitespace()
            if value.isEmpty { values.removeAll() } else { values.append(value) }
        }
        return values
    }
}

/// systemd's command-line words: split on whitespace, `"…"` and `'…'` quoting, C escapes,
/// `%%` for `%`, and in a command line `$$` for `$`. The inverse of
/// `ServiceUnits.systemdQuoted`; other specifiers and variables are kept as written.
enum SystemdWords {
    static func split(_ line: String, expandingDollars: Bool) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var scalars = Array(line.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            let character = Character(scalar)
            if quote == nil, character == " " || character == "\t" {
                if inWord { words.append(current) }
                current = ""
                inWord = false
                continue
            }
            inWord = true
            switch character {
            case "\"" where quote == nil || quote == character, "'" where quote == nil || quote == character:
                quote = quote == nil ? character : nil
            case "\\":
                guard let next = scalars.popFirst() else { break }
                switch next {
                case "n": current += "\n"
                case "t": current += "\t"
                case "r": current += "\r"
                case "s": current += " "
                case "x":
                    let hex = String(String.UnicodeScalarView(scalars.prefix(2)))
                    if hex.count == 2, let value = UInt8(hex, radix: 16) {
                        current.unicodeScalars.append(Unicode.Scalar(value))
                        scalars = scalars.dropFirst(2)
                    }
                default: current.unicodeScalars.append(next)
                }
            case "%" where scalars.first == "%":
                scalars = scalars.dropFirst()
                current += "%"
            case "$" where expandingDollars && scalars.first == "$":
                scalars = scalars.dropFirst()
                current += "$"
            default:
                current.unicodeScalars.append(scalar)
            }
        }
        if inWord { words.append(current) }
        return words
    }
}

/// Just enough of a launchd property list in XML to read back what `service install` wrote.
enum PlistText {
    /// The `<string>` values (and with `keysToo` the `<key>` names) inside the `<array>` (or
    /// `container`) that follows `<key>key</key>`; nil when there is none.
    static func strings(after key: String, in contents: String, container: String = "array", keysToo: Bool = false) -> [String]? {
        guard let keyRange = contents.firstRange(of: "<key>\(key)</key>") else { return nil }
        let rest = contents[keyRange.upperBound...]
        guard let open = rest.firstRange(of: "<\(container)>"), let close = rest.firstRange(of: "</\(container)>"),
            open.upperBound <= close.lowerBound
        else { return nil }
        var body = rest[open.upperBound..<close.lowerBound]
        var values: [String] = []
        while let start = body.firstRange(of: "<") {
            let tags = keysToo ? ["string", "key"] : ["string"]
            guard let tag = tags.first(where: { body[start.lowerBound...].hasPrefix("<\($0)>") }) else {
                body = body[start.upperBound...]
                continue
            }
            let valueStart = body.index(start.lowerBound, offsetBy: tag.count + 2)
            guard let end = body[valueStart...].firstRange(of: "</\(tag)>") else { break }
            values.append(unescaped(String(body[valueStart..<end.lowerBound])))
            body = body[end.upperBound...]
        }
        return values
    }

    static func unescaped(_ text: String) -> String {
        text.replacing("&lt;", with: "<").replacing("&gt;", with: ">").replacing("&quot;", with: "\"")
            .replacing("&apos;", with: "'").replacing("&amp;", with: "&")
    }
}
