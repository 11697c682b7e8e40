/// Decides, around each HTTP exchange, whether the process carries on. Tests use it to stop a
/// run at a chosen request the way a crash would: nothing after that point is sent or recorded.
struct ExchangeGate: Sendable {
    /// Asked before a request is sent; false fails it as cancelled, unsent.
    var mayStart: @Sendable () -> Bool
    /// Asked once the server has answered; false drops the answer and fails as cancelled.
    var mayFinish: @Sendable () -> Bool
}
