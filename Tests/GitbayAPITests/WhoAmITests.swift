import Foundation
import Testing

@testable import GitbayAPI

@Suite("WhoAmI")
struct WhoAmITests {
    @Test(
        "whoami's data decodes to the user name, whatever else it carries",
        arguments: [
            #"{"username":"alice","admin":false,"key_scope":"full"}"#,
            #"{"username":"alice","admin":true,"key_scope":"full"}"#,
            #"{"username":"alice","key_scope":"read"}"#,
            #"{"username":"alice"}"#,
        ])
    func decodes(_ data: String) throws {
        let answer = #"{"protocol_version":1,"data":\#(data),"exit_code":0}"#
        let decoded = try JSONDecoder().decode(DataEnvelope<WhoAmI>.self, from: Data(answer.utf8)).data
        #expect(decoded == WhoAmI(username: "alice"))
    }

    @Test("whoami's data without a user name does not decode")
    func missingUsername() {
        let answer = #"{"protocol_version":1,"data":{"admin":false,"key_scope":"full"},"exit_code":0}"#
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(DataEnvelope<WhoAmI>.self, from: Data(answer.utf8))
        }
    }
}
