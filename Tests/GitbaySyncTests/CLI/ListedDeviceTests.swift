import TestSupport
import Testing

@testable import GitbayAPI
@testable import GitbayReconcile
@testable import GitbayState
@testable import GitbaySupport
@testable import GitbaySync
@testable import PushResolve

@Suite("Listed device token display")
struct ListedDeviceTests {
    @Test(
        "shows at most the first 8 bytes of a token, whatever the server lists",
        arguments: [
            ("3f2a9c01…", "3f2a9c01…"),
            ("(short token)", "(short token)"),
            ("abc", "abc"),
            ("abcdefgh", "abcdefgh"),
            ("3f2a9c01deadbeefcafe", "3f2a9c01…"),
            ("3f2a9c01deadbeef…", "3f2a9c01…"),
        ])
    func display(_ shown: String, _ expected: String) {
        #expect(ListedDevice.displayed(shown) == expected)
    }
}
