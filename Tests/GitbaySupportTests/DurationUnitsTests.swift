import Testing

@testable import GitbaySupport

@Suite("Duration in milliseconds and in messages")
struct DurationUnitsTests {
    @Test(
        "milliseconds round up and saturate instead of overflowing",
        arguments: [
            (Duration.milliseconds(1500), 1500), (.nanoseconds(1), 1), (.zero, 0), (.microseconds(1001), 2),
            (.seconds(9_223_372_036_854_775), 9_223_372_036_854_775_000), (.seconds(9_223_372_036_854_776), Int.max),
            (.seconds(10_000_000_000_000_000), Int.max), (.seconds(Int64.max), Int.max), (.seconds(-Int64.max), Int.min),
            (Duration(secondsComponent: 9_223_372_036_854_775, attosecondsComponent: 807_000_000_000_000_001), Int.max),
        ])
    func milliseconds(_ duration: Duration, _ expected: Int) {
        #expect(duration.roundedUpMilliseconds == expected)
    }

    @Test(
        "short descriptions read as a person writes them, for any length",
        arguments: [
            (Duration.milliseconds(500), "500ms"), (.milliseconds(999), "999ms"), (.microseconds(999_500), "1s"), (.seconds(12), "12s"),
            (.milliseconds(1200), "2s"), (.seconds(90), "1m30s"), (.seconds(120), "2m"), (.seconds(3600), "1h"), (.seconds(3605), "1h0m5s"),
            (.seconds(7260), "2h1m"), (.zero, "0ms"), (.seconds(-5), "0ms"),
            (.seconds(10_000_000_000_000_000), "2777777777777h46m40s"), (.seconds(Int64.max), "2562047788015215h30m7s"),
            (Duration(secondsComponent: Int64.max, attosecondsComponent: 1), "2562047788015215h30m7s"),
        ])
    func shortDescription(_ duration: Duration, _ expected: String) {
        #expect(duration.shortDescription == expected)
    }
}
