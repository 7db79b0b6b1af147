import Foundation
import Testing

@testable import MetadataKit

/// ID3 text payloads decoded as an item's value.
@Suite struct ID3TextTests {
    /// The one-string path of `decodeValue` (no list made) must give what the
    /// list does, for every encoding and every shape of payload: no
    /// terminator, zeros after one, several strings, BOMs, odd lengths.
    @Test func decodingAValueAgreesWithTheList() {
        let seed = UInt64(Date().timeIntervalSince1970) % 100_000
        var random = SplitMix64(state: seed)
        // Bytes chosen to hit terminators, BOMs and text often.
        let alphabet: [UInt8] = [0, 0, 0, 0x41, 0x62, 0xE9, 0xFF, 0xFE, 0xEF, 0xBB, 0xBF, 0xD8, 0xDC, 0x20]
        for encoding in [ID3TextEncoding.latin1, .utf16, .utf16BigEndian, .utf8] {
            for _ in 0..<2_000 {
                let count = Int(random.next() % 14)
                var bytes = (0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
                if random.next() % 3 == 0 { bytes += [UInt8](repeating: 0, count: Int(random.next() % 5)) }
                let payload = [0x55] + bytes // decoded from index 1, as frames are
                let strings = ID3Text.decodeList(payload[1...], encoding: encoding)
                let expected: MetadataValue = strings.count == 1 ? .string(strings[0]) : .strings(strings)
                #expect(
                    ID3Text.decodeValue(payload[1...], encoding: encoding) == expected,
                    "\(encoding) \(bytes.map { String($0, radix: 16) }), seed \(seed)")
            }
        }
    }

    @Test func aValueIsOneStringOrSeveral() {
        let list: [UInt8] = Array("one".utf8) + [0] + Array("two".utf8) + [0, 0]
        #expect(ID3Text.decodeValue(list[...], encoding: .latin1) == .strings(["one", "two"]))
        let single: [UInt8] = Array("one".utf8) + [0, 0, 0]
        #expect(ID3Text.decodeValue(single[...], encoding: .latin1) == .string("one"))
        #expect(ID3Text.decodeValue([][...], encoding: .utf16) == .string(""))
    }
}
