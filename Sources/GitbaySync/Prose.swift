import GitbaySupport

/// A help text as its spec writes it: paragraphs of lines, and indented lines kept as they are.
enum Prose {
    /// A piece of prose: a paragraph to fill, or indented example lines to keep as they are.
    enum Block: Equatable {
        case paragraph(String)
        case example([String])
    }

    /// The blocks of `text`: lines between blank lines are joined into a paragraph; indented
    /// lines are an example.
    static func blocks(_ text: String) -> [Block] {
        var blocks: [Block] = []
        var paragraph: [String] = []
        var example: [String] = []
        func finish() {
            if !paragraph.isEmpty { blocks.append(.paragraph(paragraph.joined(separator: " "))) }
            if !example.isEmpty { blocks.append(.example(example)) }
            paragraph = []
            example = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = String(line).trimmingWhitespace()
            if trimmed.isEmpty {
                finish()
            } else if line.first == " " {
                if !paragraph.isEmpty { finish() }
                example.append(trimmed)
            } else {
                if !example.isEmpty { finish() }
                paragraph.append(trimmed)
            }
        }
        finish()
        return blocks
    }
}
