import Foundation

/// What one in-process run of the command line printed and returned.
package struct CLIResult: Sendable {
    package let code: Int32
    package let out: String
    package let err: String
    /// The confirmation questions asked, in order, as the terminal would show them.
    package var questions: [String] = []
    /// The prompts shown before reading a secret without echo, in order.
    package var prompts: [String] = []

    /// stdout was JSON but not an object.
    package struct NotAnObject: Error { package let text: String }

    package init(code: Int32, out: String, err: String, questions: [String] = [], prompts: [String] = []) {
        self.code = code
        self.out = out
        self.err = err
        self.questions = questions
        self.prompts = prompts
    }

    /// stdout parsed as JSON.
    package func json() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(out.utf8))
        guard let dictionary = object as? [String: Any] else { throw NotAnObject(text: out) }
        return dictionary
    }
}
