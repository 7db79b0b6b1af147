#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MetadataKeySpace {
    /// ID3v2 frames (v2.2, v2.3 and v2.4); keys are frame IDs such as `TIT2`.
    public static let id3 = MetadataKeySpace(rawValue: "id3")
}

/// How ID3v2 frames hold the fields whose form is their own (ID3v2.4.0
/// frames, ID3v2.3.0 §4):
/// - dates: a timestamp (§4.2.5) in `TDRC`/`TYER`, whose leading timestamp
///   is read from other text ("2004" of "2004 (remaster)", as TagLib and
///   mutagen read it); ID3v2.3 splits it into `TYER`, `TDAT` (DDMM) and
///   `TIME` (HHMM), joined back into "yyyy-MM-dd[THH:mm]" (`TDAT`/`TIME`
///   alone are no year); a written `TDRC`/`TYER` must be one;
/// - the original date: a fuller `TXXX:ORIGINALDATE` of the same year
///   wins over a year-only `TORY`/`TDOR` (v2.3 saves keep both);
/// - genres: `TCON` names, numbers, "(n)" references and "(RX)"/"(CR)"
///   (``ID3Genres/parse(_:)``);
/// - comments: only `COMM` frames without a description (the key map
///   offers no others) and `TXXX`; a new one is in English;
/// - people: `TIPL`/`TMCL`/`IPLS` pairs, one role per field;
/// - the rating: `POPM`'s byte 0–255 (§4.17), shown as 0–100;
/// - the movement: `MVIN` "n/N" (iTunes');
/// - ReplayGain: `RVA2` (§4.11) master volume entries beside the text keys;
/// - the podcast flag: `PCST`'s 32-bit counter;
/// - identifiers: `UFID` bytes (§4.1) as text, at most 64 bytes;
/// - pictures: one `APIC` per description (§4.14): repeated descriptions
///   get " (2)", " (3)", … (an empty one "2", "3").
struct ID3FieldCodec: KeySpaceCodec {
    var keySpace: MetadataKeySpace { .id3 }

    private static let dayKeys: [String] = ["TDAT", "TDA"]
    private static let timeKeys: [String] = ["TIME", "TIM"]
    /// The frames the year is read from whose text is a timestamp.
    private static let yearKeys: [String] = ["TDRC", "TYER", "TYE"]
    /// The frames whose written value must be a timestamp.
    private static let timestampKeys: [String] = ["TDRC", "TYER"]

    func reading(_ field: MetadataField, from item: MetadataItem, among items: [MetadataItem]) -> FieldReading {
        if case .data(let bytes) = item.value, item.key.hasPrefix("UFID:") {
            // An owner, then an identifier of up to 64 bytes (ASCII by use).
            let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            return text.isEmpty ? .none : .value(.text(text))
        }
        switch field {
        case .date: return year(from: item, among: items)
        case .originalDate: return originalDate(from: item, among: items)
        case .genre:
            return GenreMetadataConverter.value(of: item.value.stringValues.flatMap(ID3Genres.parse)).map { .value($0) } ?? .none
        case .comments:
            return item.key == "COMM" || item.key == "COM" || item.key.hasPrefix("TXXX:") ? .standard : .none
        case .rating:
            guard case .integer(let raw) = item.value, (0...255).contains(raw) else { return .standard }
            return .value(.integer(Int((Double(raw) * 100 / 255).rounded())))
        case .movementNumber, .movementCount:
            if case .integer = item.value { return .standard }
            guard let pair = item.value.stringValue.flatMap(PositionMetadataConverter.parse) else { return .none }
            return ((field == .movementCount ? pair.total : pair.number).map { .value(.integer($0)) }) ?? .none
        case .replayGainTrackGain, .replayGainTrackPeak, .replayGainAlbumGain, .replayGainAlbumPeak:
            guard let frame = ID3RelativeVolume(item: item) else { return .standard }
            return (ReplayGainMetadataConverter.isGain(field) ? frame.gainText : frame.peakText).map { .value(.text($0)) } ?? .none
        case _ where field == .performers || InvolvedPeopleMetadataConverter.isRole(field):
            guard ID3v2FrameDecoder.pairFrames.contains(item.key) else { return .standard }
            let matching = Self.pairs(item).filter { Self.belongs($0.role, in: item.key, to: field) && !$0.name.isEmpty }
            return DisplayValue.list(field == .performers ? matching.map(Self.performer) : matching.map(\.name)).map { .value($0) } ?? .none
        case _ where field.kind == .boolean:
            guard case .data(let bytes) = item.value, item.key == "PCST", bytes.count == 4 else { return .standard }
            return .value(.integer(bytes.contains { $0 != 0 } ? 1 : 0))
        default:
            return .standard
        }
    }

    func items(for field: MetadataField, value: DisplayValue?, key: String, existing: [MetadataItem]) throws -> [MetadataItem]? {
        if key.hasPrefix("UFID:") {
            guard let text = value?.text else { return value == nil ? [] : nil }
            guard text.utf8.count <= 64 else { throw MediaError(.invalidValue, "an ID3 UFID identifier holds at most 64 bytes") }
            return [MetadataItem(keySpace: keySpace, key: key, value: .data(Data(text.utf8)), dataType: .binary)]
        }
        switch field {
        case .date:
            if let text = value?.text, Self.timestampKeys.contains(key), !DateMetadataConverter.isTimestamp(text) {
                throw MediaError(
                    .invalidValue, "year '\(text)' is not a date \(rawKey(key)) can hold; use \(DateMetadataConverter.acceptedForms)")
            }
            return nil
        case .comments:
            guard let text = value?.text else { return [] }
            return [
                MetadataItem(
                    keySpace: keySpace, key: key, value: .string(text), dataType: .utf8, language: existing.first?.language ?? "eng")
            ]
        case .artwork:
            return value?.artwork.map { ArtworkMetadataConverter.items(for: Self.uniquelyDescribed($0), key: rawKey(key)) }
        case .rating:
            guard let rating = value?.integer else { return nil }
            let raw = Int64((Double(rating) * 255 / 100).rounded())
            return [MetadataItem(keySpace: keySpace, key: key, value: .integer(raw), dataType: .unsignedInteger)]
        case .movementNumber, .movementCount:
            return movementItems(for: field, value: value?.integer, key: key, existing: existing)
        case .replayGainTrackGain, .replayGainTrackPeak, .replayGainAlbumGain, .replayGainAlbumPeak:
            guard key.hasPrefix("RVA2:") else { return nil }
            return volumeItems(for: field, text: value?.text, existing: existing)
        case _ where field == .performers || InvolvedPeopleMetadataConverter.isRole(field):
            guard ID3v2FrameDecoder.pairFrames.contains(key) else { return nil }
            return peopleItems(for: field, names: value?.texts ?? [], key: key, existing: existing)
        case _ where field.kind == .boolean:
            // iTunes' podcast frame: a 32-bit counter, non-zero for a podcast.
            guard key == "PCST", let flag = value?.boolean else { return nil }
            return [MetadataItem(keySpace: keySpace, key: key, value: .data(Data([0, 0, 0, flag ? 1 : 0])), dataType: .binary)]
        default:
            return nil
        }
    }

    var replacedKeys: Set<String> { Set(MetadataKeyMap.id3ReplacedKeys.map(\.key)) }
    var fallbackKeys: Set<String> { Set(["TDRL", "TDOR", "TORY"] + MetadataKeyMap.id3VolumeKeys.map(\.key)) }
    var syncedFallbackKeys: Set<String> { Set(MetadataKeyMap.id3VolumeKeys.map(\.key)) }

    // MARK: Dates

    private func year(from item: MetadataItem, among items: [MetadataItem]) -> FieldReading {
        if Self.dayKeys.contains(item.key) || Self.timeKeys.contains(item.key) { return .none }
        guard var text = item.value.stringValues.first(where: { !$0.isEmpty }) ?? item.value.stringValue, !text.isEmpty else {
            return .none
        }
        if Self.yearKeys.contains(item.key), !DateMetadataConverter.isTimestamp(text) {
            guard let prefix = DateMetadataConverter.leadingTimestamp(text) else { return .none }
            text = prefix
        }
        if item.key == "TYER" || item.key == "TYE", text.count == 4 {
            func digits(_ keys: [String]) -> [Character]? {
                guard let value = items.first(where: { keys.contains($0.key) })?.value.stringValue,
                    value.count == 4, value.allSatisfy(\.isNumber)
                else { return nil }
                return Array(value)
            }
            if let day = digits(Self.dayKeys) {
                text += "-\(day[2])\(day[3])-\(day[0])\(day[1])"
                if let time = digits(Self.timeKeys) { text += "T\(time[0])\(time[1]):\(time[2])\(time[3])" }
            }
        }
        return .value(.text(text))
    }

    private func originalDate(from item: MetadataItem, among items: [MetadataItem]) -> FieldReading {
        guard item.value.stringValue != nil, let shown = DefaultMetadataConverter().value(of: item, for: .originalDate)?.text,
            let fuller = items.first(where: { $0.keySpace == .id3 && $0.key == "TXXX:ORIGINALDATE" })?.value.stringValue,
            fuller.count > shown.count, fuller.hasPrefix(shown)
        else { return .standard }
        return .value(.text(fuller))
    }
}
