/// A device row the fake server deleted, for tests that check who deleted what.
public struct FakeDeletion: Sendable, Equatable {
    /// The row as it was just before the deletion, `insertedWith` included.
    public let device: FakeDevice
    /// The API bearer token of the `device remove` that deleted it; nil for
    /// `FakeGitbayServer.deleteDevice(id:)`, which stands for an APNs rejection or a removal
    /// from the web page.
    public let byAPIToken: String?

    public init(device: FakeDevice, byAPIToken: String?) {
        self.device = device
        self.byAPIToken = byAPIToken
    }
}
