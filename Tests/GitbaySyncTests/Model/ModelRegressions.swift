/// Schedules the model-based test once found failing, kept so they keep passing.
enum ModelRegressions {
    static let all: [ModelSchedule] = [
        ModelSchedule(name: "a rotation between tokens sharing 8 bytes, then sign-out", returnsDeviceID: [true, false], steps: [
            .setToken("https://push.example.org/up/AAAA1", label: nil),
            .run(concurrency: 1, crash: nil),
            .setToken("https://push.example.org/up/BBBB2", label: nil),
            .run(concurrency: 1, crash: nil),
            .removeAccount(0, crash: nil),
            .run(concurrency: 4, crash: nil),
        ]),
    ]
}
