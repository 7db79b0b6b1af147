#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An ID3v2.4 `RVA2` frame: relative volume adjustment (ID3v2.4.0 frames
/// §4.11), the frame mp3gain, QuodLibet/mutagen and MPD use for ReplayGain.
///
/// Layout: an identification string in ISO-8859-1 ended by a zero byte
/// (ReplayGain uses "track" and "album"), then channel entries of
/// - a channel type byte (0 other, 1 master volume, 2 front right, 3 front
///   left, 4 back right, 5 back left, 6 front centre, 7 back centre,
///   8 subwoofer),
/// - the volume adjustment: a signed 16-bit big-endian number of 1/512 dB,
/// - the number of bits representing the peak (0–255; 0 for no peak),
/// - the peak in ⌈bits / 8⌉ bytes, most significant first.
///
/// The spec leaves the peak's scale open; like mutagen and mp3gain, the
/// peak is read as a fraction of full scale, the integer divided by
/// 2^(bits−1) (16 bits: 32768 is 1.0), and written as 16 bits.
///
/// Parsing never reads past the payload: a channel entry cut short ends the
/// list and its bytes are kept as ``trailing``, so an updated frame writes
/// them back.
struct ID3RelativeVolume: Equatable {
    /// One channel's entry.
    struct Channel: Equatable {
        /// The channel type (1 is the master volume).
        var type: UInt8
        /// The volume adjustment in 1/512 dB.
        var adjustment: Int16
        /// The number of bits representing the peak (0: no peak).
        var peakBits: UInt8
        /// The peak's ⌈peakBits / 8⌉ bytes as stored.
        var peakBytes: [UInt8]

        /// The adjustment in dB.
        var gain: Double { Double(adjustment) / 512 }

        /// The peak as a fraction of full scale; nil when the entry has none.
        var peak: Double? {
            guard peakBits > 0 else { return nil }
            let integer = peakBytes.reduce(0.0) { $0 * 256 + Double($1) }
            return integer / pow(2, Double(peakBits) - 1)
        }
    }

    /// The channel type of the master volume, the entry ReplayGain uses.
    static let masterVolume: UInt8 = 1

    /// The identification string's bytes as stored (without its terminator).
    var identificationBytes: [UInt8]
    var channels: [Channel]
    /// Bytes after the last whole channel entry (an entry cut short).
    var trailing: [UInt8]

    /// The identification string ("track", "album").
    var identification: String { ID3Text.latin1(identificationBytes[...]) }

    /// Parses a frame payload; nil when it has no terminated identification.
    init?(parsing payload: [UInt8]) {
        guard let zero = payload.firstIndex(of: 0) else { return nil }
        identificationBytes = Array(payload[..<zero])
        channels = []
        var index = zero + 1
        while payload.count - index >= 4 {
            let count = (Int(payload[index + 3]) + 7) / 8
            guard payload.count - index - 4 >= count else { break }
            let adjustment = Int16(bitPattern: UInt16(payload[index + 1]) << 8 | UInt16(payload[index + 2]))
            channels.append(
                Channel(
                    type: payload[index], adjustment: adjustment, peakBits: payload[index + 3],
                    peakBytes: Array(payload[(index + 4)..<(index + 4 + count)])))
            index += 4 + count
        }
        trailing = Array(payload[index...])
    }

    /// The payload: identification, terminator, the entries, then ``trailing``.
    var payload: [UInt8] {
        var bytes = identificationBytes + [0]
        for channel in channels {
            let bits = UInt16(bitPattern: channel.adjustment)
            bytes += [channel.type, UInt8(bits >> 8), UInt8(bits & 0xFF), channel.peakBits] + channel.peakBytes
        }
        return bytes + trailing
    }

    /// The master volume entry, the one ReplayGain reads (the first when
    /// there are several); nil when the frame has none.
    var master: Channel? { channels.first { $0.type == Self.masterVolume } }

    /// The master volume's adjustment as ReplayGain text ("-6.50 dB").
    var gainText: String? { master.map { Self.gainText($0.gain) } }

    /// The master volume's peak as ReplayGain text ("0.988159"); nil without one.
    var peakText: String? { master?.peak.map(Self.peakText) }

    /// A gain as ReplayGain text: sign, two decimals, " dB" (as metaflac and foobar2000 store it).
    static func gainText(_ gain: Double) -> String { String(cFormat: "%+.2f dB", gain) }

    /// A peak as ReplayGain text: six decimals.
    static func peakText(_ peak: Double) -> String { String(cFormat: "%.6f", peak) }

    /// The number in ReplayGain gain text ("-6.50 dB", "+1.2", "-3 db"); nil
    /// when it is none.
    static func gain(fromText text: String) -> Double? {
        var text = Substring(text.trimmingSpaces)
        if text.lowercased().hasSuffix("db") { text = text.dropLast(2) }
        guard let number = Double(String(text.trimmingSpaces)), number.isFinite else { return nil }
        return number
    }

    /// The number in ReplayGain peak text; nil when it is none.
    static func peak(fromText text: String) -> Double? {
        guard let number = Double(String(text.trimmingSpaces)), number.isFinite else { return nil }
        return number
    }

    /// The frame with every master volume entry adjusted to `gain` dB
    /// (rounded to 1/512 dB); nil when the frame has no master volume entry
    /// or the gain is beyond what 16 bits hold (−64 to +63.998 dB).
    func settingGain(_ gain: Double) -> ID3RelativeVolume? {
        let steps = (gain * 512).rounded()
        guard master != nil, steps >= Double(Int16.min), steps <= Double(Int16.max) else { return nil }
        var copy = self
        for index in copy.channels.indices where copy.channels[index].type == Self.masterVolume {
            copy.channels[index].adjustment = Int16(steps)
        }
        return copy
    }

    /// The frame with every master volume entry's peak set to `peak` (16 bits,
    /// `round(peak × 32768)`, as mutagen writes it); nil when the frame has no
    /// master volume entry or the peak is outside 0 to 65535 / 32768.
    func settingPeak(_ peak: Double) -> ID3RelativeVolume? {
        let integer = (peak * 32768).rounded()
        guard master != nil, integer >= 0, integer <= 65535 else { return nil }
        var copy = self
        let value = UInt16(integer)
        for index in copy.channels.indices where copy.channels[index].type == Self.masterVolume {
            copy.channels[index].peakBits = 16
            copy.channels[index].peakBytes = [UInt8(value >> 8), UInt8(value & 0xFF)]
        }
        return copy
    }

    /// The item for frame `id` (`RVA2`): key `RVA2:<identification>`, the
    /// payload as `.data` (written back as it is). Nil when the payload is
    /// no `RVA2` (no terminated identification): the caller keeps it as a
    /// plain binary item.
    static func item(id: String, payload: [UInt8]) -> MetadataItem? {
        guard let frame = ID3RelativeVolume(parsing: payload) else { return nil }
        return MetadataItem(
            keySpace: .id3, key: "\(id):\(frame.identification)", value: .data(Data(payload)), dataType: .binary)
    }

    /// The frame an item holds: an `.id3` item keyed `RVA2:…` whose value is
    /// the payload; nil for any other item.
    init?(item: MetadataItem) {
        guard item.keySpace == .id3, item.key.hasPrefix("RVA2:"), case .data(let bytes) = item.value else { return nil }
        self.init(parsing: [UInt8](bytes))
    }
}
