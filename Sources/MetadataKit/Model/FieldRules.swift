/// What a value of each field must look like to be written, checked before a
/// save touches the file: a value no reader could make sense of (a 13th
/// month, a rating of 300, a MusicBrainz ID that is no UUID) is refused with
/// the rule in the message instead of being stored. Values read from a file
/// are never judged: only what an edit sets.
enum FieldRules {
    /// Throws `invalidValue` naming the field and its rule when `value` breaks it.
    static func check(_ field: MetadataField, _ value: DisplayValue) throws {
        for text in texts(of: value) {
            if let rule = rule(for: field), !rule.accepts(text) {
                throw MediaError(.invalidValue, "\(field.rawValue) '\(text)' is not \(rule.description)")
            }
        }
        if case .texts(let values) = value, values.count > 1, singleValued.contains(field) {
            throw MediaError(
                .invalidValue, "\(field.rawValue) holds one value; got \(values.count) (other tools read only the first)")
        }
    }

    /// The values to judge: each text of a list, the number of an integer.
    private static func texts(of value: DisplayValue) -> [String] {
        switch value {
        case .integer(let number): return [String(number)]
        case .artwork, .genre: return []
        default: return value.texts
        }
    }

    /// Fields that hold one value in every format's readers (a date, a
    /// number, an identifier of the one recording): several values are refused.
    static let singleValued: Set<MetadataField> = [
        .date, .releaseDate, .originalDate, .originalYear, .bpm, .trackNumber, .trackCount, .discNumber, .discCount,
        .movementNumber, .movementCount, .rating, .isCompilation, .isGapless, .isPodcast, .showsMovement,
        .replayGainTrackGain, .replayGainTrackPeak, .replayGainAlbumGain, .replayGainAlbumPeak,
        .replayGainReferenceLoudness, .r128TrackGain, .r128AlbumGain, .musicBrainzRecordingID,
        .musicBrainzReleaseTrackID, .musicBrainzReleaseID, .musicBrainzReleaseGroupID, .musicBrainzDiscID,
        .musicBrainzTRMID, .musicBrainzOriginalReleaseID, .acoustID, .acoustIDFingerprint, .lyrics, .comments,
        .podcastURL, .website, .asin, .barcode, .isrc, .initialKey,
    ]

    struct Rule {
        var description: String
        var accepts: (String) -> Bool
    }

    static func rule(for field: MetadataField) -> Rule? {
        switch field {
        case .date, .releaseDate, .originalDate:
            return Rule(
                description: "a date: yyyy, yyyy-MM, yyyy-MM-dd, yyyy-MM-ddTHH:mm or yyyy-MM-ddTHH:mm:ss, each part in range",
                accepts: { CalendarDate($0) != nil })
        case .originalYear:
            return Rule(description: "a year of four digits", accepts: { CalendarDate($0)?.isYearOnly == true })
        case .trackNumber, .trackCount, .discNumber, .discCount, .movementNumber, .movementCount, .bpm:
            return Rule(description: "a whole number from 0 to 65535", accepts: { whole($0, in: 0...65535) })
        case .rating:
            return Rule(description: "a whole number from 0 to 100", accepts: { whole($0, in: 0...100) })
        case .isCompilation, .isGapless, .isPodcast, .showsMovement:
            return Rule(
                description: "a flag: 1, 0, true, false, yes or no",
                accepts: { ["1", "0", "true", "false", "yes", "no"].contains($0.lowercased()) })
        case .replayGainTrackGain, .replayGainAlbumGain:
            return Rule(
                description: "a gain in dB such as '-6.50 dB' (from -64 to +64)",
                accepts: { number($0, unit: "dB").map { abs($0) <= 64 } ?? false })
        case .replayGainTrackPeak, .replayGainAlbumPeak:
            return Rule(
                description: "a peak such as '0.988159' (from 0 to 2)",
                accepts: { number($0, unit: nil).map { (0...2).contains($0) } ?? false })
        case .replayGainReferenceLoudness:
            return Rule(
                description: "a loudness such as '89.0 dB' or '-18.00 LUFS'",
                accepts: { (number($0, unit: "dB") ?? number($0, unit: "LUFS")).map { abs($0) <= 200 } ?? false })
        case .r128TrackGain, .r128AlbumGain:
            return Rule(
                description: "a whole number of 1/256 dB from -32768 to 32767 (RFC 7845 §5.2.1)",
                accepts: { whole($0, in: -32768...32767) })
        case .musicBrainzRecordingID, .musicBrainzReleaseTrackID, .musicBrainzReleaseID, .musicBrainzReleaseGroupID,
            .musicBrainzArtistID, .musicBrainzAlbumArtistID, .musicBrainzWorkID, .musicBrainzTRMID,
            .musicBrainzOriginalReleaseID, .acoustID:
            return Rule(description: "a UUID such as 8f4fcb8e-4d4b-4a0b-9a36-0e1f9f0e3a5c", accepts: isUUID)
        case .isrc:
            return Rule(description: "an ISRC: 12 characters, CCXXXYYNNNNN (e.g. USRC17607839)", accepts: isISRC)
        default:
            return nil
        }
    }

    private static func whole(_ text: String, in range: ClosedRange<Int>) -> Bool {
        guard let number = Int(text.trimmingSpaces) else { return false }
        return range.contains(number)
    }

    /// A decimal number, optionally followed by ` unit` (or the unit without a space).
    private static func number(_ text: String, unit: String?) -> Double? {
        var text = Substring(text.trimmingSpaces)
        if let unit, text.lowercased().hasSuffix(unit.lowercased()) {
            text = text.dropLast(unit.count)
            while text.last == " " { text = text.dropLast() }
        }
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.".contains($0)) }),
            let number = Double(text), number.isFinite
        else { return nil }
        return number
    }

    static func isUUID(_ text: String) -> Bool {
        let characters = Array(text)
        guard characters.count == 36 else { return false }
        for (index, character) in characters.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                if character != "-" { return false }
            } else if !character.isHexDigit {
                return false
            }
        }
        return true
    }

    /// ISO 3901: country (2 letters), registrant (3 alphanumerics), year (2
    /// digits), designation (5 digits); as Picard stores it, without hyphens.
    static func isISRC(_ text: String) -> Bool {
        let characters = Array(text)
        guard characters.count == 12, characters.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
            return false
        }
        return characters[0..<2].allSatisfy(\.isLetter) && characters[5..<12].allSatisfy(\.isNumber)
    }
}

/// A calendar date or time in one of the ID3v2.4 timestamp forms (ID3v2.4.0
/// structure §4: `yyyy`, `yyyy-MM`, `yyyy-MM-dd`, `yyyy-MM-ddTHH`,
/// `yyyy-MM-ddTHH:mm`, `yyyy-MM-ddTHH:mm:ss`), every part in range (a 30th
/// of February, hour 25 or minute 61 are none).
struct CalendarDate: Sendable {
    var year: Int
    var month: Int?
    var day: Int?
    var isYearOnly: Bool { month == nil }

    init?(_ text: String) {
        guard DateMetadataConverter.isTimestamp(text) else { return nil }
        let digits = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard let year = digits.first else { return nil }
        self.year = year
        if digits.count > 1 {
            guard (1...12).contains(digits[1]) else { return nil }
            month = digits[1]
        }
        if digits.count > 2, let month {
            guard (1...Self.days(in: month, of: year)).contains(digits[2]) else { return nil }
            day = digits[2]
        }
        let limits = [23, 59, 59]
        for (value, limit) in zip(digits.dropFirst(3), limits) where value > limit {
            return nil
        }
    }

    static func days(in month: Int, of year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
