import GitbaySupport

/// The screen a push points at: an issue, a merge request or a build of a repository.
///
/// Only `<owner>/<repo>/<section>/<number>` paths route, with the sections the gitbay app
/// opens (`issues`, `mrs`, `builds`); anything else (a repository root, a wiki page,
/// `merge_requests`) has no destination.
package struct PushDestination: Sendable, Equatable {
    package enum Kind: String, Sendable, CaseIterable {
        case issue, mr, build

        /// The path section that names this kind.
        package var section: String {
            switch self {
            case .issue: "issues"
            case .mr: "mrs"
            case .build: "builds"
            }
        }
    }

    package let kind: Kind
    package let owner: String
    package let repository: String
    package let number: Int

    package init(kind: Kind, owner: String, repository: String, number: Int) {
        self.kind = kind
        self.owner = owner
        self.repository = repository
        self.number = number
    }

    /// Routes a payload's `path`; nil when the app has no screen for it.
    package init?(path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, Self.isName(parts[0]), Self.isName(parts[1]),
            let kind = Kind.allCases.first(where: { $0.section == parts[2] }),
            !parts[3].isEmpty, parts[3].utf8.count <= 18, parts[3].utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let number = Int(parts[3]), number > 0
        else { return nil }
        self.init(kind: kind, owner: parts[0], repository: parts[1], number: number)
    }

    /// `owner/repo`.
    package var repositoryPath: String { "\(owner)/\(repository)" }

    /// The web page to open: `<instance>/<owner>/<repo>/<section>/<n>`.
    package func webURL(on instance: InstanceURL) -> String {
        instance.url(path: "/\(owner)/\(repository)/\(kind.section)/\(number)")
    }

    /// An owner or repository name that is safe in a URL path: ASCII letters, digits, `-`,
    /// `_` and `.`, and not `.` or `..` (which would climb out of the repository).
    private static func isName(_ text: String) -> Bool {
        guard !text.isEmpty, text != ".", text != ".." else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.".unicodeScalars.contains(scalar))
        }
    }
}
