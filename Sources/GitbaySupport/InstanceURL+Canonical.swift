#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension InstanceURL {
    /// The one spelling of a host among those that certainly name the same address: a DNS name
    /// without its final dot (`gitbay.org.` is `gitbay.org`), an IPv4 address in dotted decimal
    /// (`127.000.000.001`, `0x7f.1` and `2130706433` are `127.0.0.1`, read as the resolver and
    /// libcurl read them), an IPv6 literal in its shortest form. `host` is lower-case ASCII.
    /// Anything else (`localhost` beside `127.0.0.1`, an alias name) is left to be proven the
    /// same server by record.
    static func canonicalHost(_ host: String) -> String {
        if isDottedDecimal(host.utf8) { return host }
        if host.contains(":") { return canonicalIPv6(host) ?? host }
        var name = Substring(host)
        if name.count > 1, name.hasSuffix("."), !name.dropLast().hasSuffix(".") { name = name.dropLast() }
        return ipv4(name).map(dottedDecimal) ?? String(name)
    }

    /// The address of an IPv4 literal as `inet_aton` reads it: one to four parts, each decimal,
    /// octal (a leading `0`) or hexadecimal (`0x`), the last filling the bytes left. Nil when
    /// `text` is not one (a DNS name).
    static func ipv4(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var values: [UInt64] = []
        for part in parts {
            guard let value = number(part) else { return nil }
            values.append(value)
        }
        // Every part but the last is one byte; the last fills the rest.
        let leading = values.dropLast()
        guard leading.allSatisfy({ $0 <= 0xFF }), let last = values.last else { return nil }
        let lastBits = 8 * (4 - leading.count)
        guard last < (UInt64(1) << lastBits) else { return nil }
        var address: UInt64 = 0
        for (index, byte) in leading.enumerated() { address |= byte << (24 - 8 * index) }
        return UInt32(address | last)
    }

    /// A part of an IPv4 literal, or nil. Values beyond 32 bits are refused before they grow.
    private static func number(_ part: Substring) -> UInt64? {
        var digits = part.utf8[...]
        var radix: UInt64 = 10
        if digits.starts(with: "0x".utf8) || digits.starts(with: "0X".utf8) {
            radix = 16
            digits = digits.dropFirst(2)
        } else if digits.count > 1, digits.first == UInt8(ascii: "0") {
            radix = 8
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty || radix == 16 else { return nil }
        var value: UInt64 = 0
        for byte in digits {
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt64(byte - UInt8(ascii: "a") + 10)
            default: return nil
            }
            guard digit < radix else { return nil }
            value = value * radix + digit
            guard value <= UInt64(UInt32.max) else { return nil }
        }
        return value
    }

    /// Whether `bytes` are an IPv4 address in dotted decimal already: four parts of one to three
    /// digits, none with a leading zero, each at most 255. Read without building anything, as
    /// every parse of a loopback URL meets one.
    static func isDottedDecimal(_ bytes: String.UTF8View) -> Bool {
        var (parts, digits, value) = (1, 0, 0)
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, parts < 4 else { return false }
                (parts, digits, value) = (parts + 1, 0, 0)
                continue
            }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), !(digits == 1 && value == 0) else { return false }
            (digits, value) = (digits + 1, value * 10 + Int(byte - UInt8(ascii: "0")))
            guard value <= 255 else { return false }
        }
        return parts == 4 && digits > 0
    }

    private static func dottedDecimal(_ address: UInt32) -> String {
        [24, 16, 8, 0].map { String((address >> UInt32($0)) & 0xFF) }.joined(separator: ".")
    }

    /// An IPv6 literal in the form `inet_ntop` writes; nil when it is not one.
    private static func canonicalIPv6(_ text: String) -> String? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
