#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The frames of ``ID3FieldCodec`` that hold more than one value: people
/// in pairs, the movement's number and count, ReplayGain volumes, pictures.
extension ID3FieldCodec {
    // MARK: People (ID3v2.4.0 frames §4.2.2 `TIPL`/`TMCL`, ID3v2.3.0 §4.4 `IPLS`)

    static func pairs(_ item: MetadataItem) -> [(role: String, name: String)] {
        let strings = item.value.stringValues
        return stride(from: 0, to: strings.count - 1, by: 2).map { (strings[$0], strings[$0 + 1]) }
    }

    /// Whether the pair `role` belongs to `field` in frame `key`: `TMCL`'s
    /// pairs and pairs of roles no field has are performers.
    static func belongs(_ role: String, in key: String, to field: MetadataField) -> Bool {
        let roles = InvolvedPeopleMetadataConverter.roles
        let known = roles.values.contains { role.equalsIgnoringCase(ascii: $0) }
        if field == .performers { return key == "TMCL" || !known }
        return key != "TMCL" && roles[field].map { role.equalsIgnoringCase(ascii: $0) } == true
    }

    /// "Name (role)", or the name alone for an empty role, as Vorbis
    /// `PERFORMER` holds them.
    static func performer(_ pair: (role: String, name: String)) -> String {
        pair.role.isEmpty ? pair.name : "\(pair.name) (\(pair.role))"
    }

    /// The frame `key` with `field`'s pairs replaced by `names` and the
    /// other roles' pairs kept (the fields share the frame).
    func peopleItems(for field: MetadataField, names: [String], key: String, existing: [MetadataItem]) -> [MetadataItem] {
        var pairs = existing.flatMap(Self.pairs).filter { !Self.belongs($0.role, in: key, to: field) }
        for name in names {
            if field == .performers {
                // "Name (instrument)"; a name without one gets an empty instrument.
                if name.hasSuffix(")"), let open = name.lastIndex(of: "(") {
                    let role = name[name.index(after: open)..<name.index(before: name.endIndex)]
                    pairs.append((String(role), String(name[..<open].trimmingSpaces)))
                } else {
                    pairs.append(("", name))
                }
            } else if let role = InvolvedPeopleMetadataConverter.roles[field] {
                pairs.append((role, name))
            }
        }
        if pairs.isEmpty { return [] }
        return [
            MetadataItem(
                keySpace: keySpace, key: key, value: .strings(pairs.flatMap { [$0.role, $0.name] }),
                dataType: existing.first?.dataType ?? .utf8)
        ]
    }

    // MARK: Movement (iTunes' `MVIN` text frame, "n/N")

    /// `MVIN` with the field's part set to `value` and the other part kept.
    func movementItems(for field: MetadataField, value: Int?, key: String, existing: [MetadataItem]) -> [MetadataItem] {
        let current =
            existing.lazy.compactMap { item -> (number: Int?, total: Int?)? in
                if case .integer(let number) = item.value {
                    guard (0...Int64(Int32.max)).contains(number) else { return nil }
                    return field == .movementCount ? (nil, Int(number)) : (Int(number), nil)
                }
                return item.value.stringValue.flatMap(PositionMetadataConverter.parse)
            }.first ?? (nil, nil)
        let number = field == .movementCount ? current.number : value
        let total = field == .movementCount ? value : current.total
        if number == nil && total == nil { return [] }
        let text = total.map { "\(number.map(String.init) ?? "")/\($0)" } ?? number.map(String.init) ?? ""
        return [MetadataItem(keySpace: keySpace, key: key, value: .string(text), dataType: .latin1)]
    }

    // MARK: ReplayGain (`RVA2`, ID3v2.4.0 frames §4.11)

    /// The file's `RVA2` frames with the master volume's adjustment (a gain)
    /// or peak set from `text`, as mutagen's EasyID3 does. A value the
    /// frame can't hold (no number, beyond ±64 dB, a peak outside 0–2)
    /// removes the frame instead, and so does removing the field, so the
    /// two never disagree; a frame without a master volume entry is no
    /// ReplayGain and stays as it is.
    func volumeItems(for field: MetadataField, text: String?, existing: [MetadataItem]) -> [MetadataItem] {
        guard let text else { return [] }
        let isGain = ReplayGainMetadataConverter.isGain(field)
        let number = isGain ? ID3RelativeVolume.gain(fromText: text) : ID3RelativeVolume.peak(fromText: text)
        return existing.compactMap { (item: MetadataItem) -> MetadataItem? in
            guard let frame = ID3RelativeVolume(item: item), frame.master != nil else { return item }
            let updated = number.flatMap { isGain ? frame.settingGain($0) : frame.settingPeak($0) }
            guard let updated else { return nil }
            return MetadataItem(keySpace: item.keySpace, key: item.key, value: .data(Data(updated.payload)), dataType: .binary)
        }
    }

    // MARK: Pictures (`APIC`, ID3v2.4.0 frames §4.14: one per description)

    /// `pictures` with repeated descriptions made unique: " (2)", " (3)",
    /// … after the description (an empty one becomes "2", "3").
    static func uniquelyDescribed(_ pictures: [Artwork]) -> [Artwork] {
        var used = Set<String>()
        return pictures.map { picture -> Artwork in
            var picture = picture
            var number = 2
            let base = picture.description
            while used.contains(picture.description) {
                picture.description = base.isEmpty ? "\(number)" : "\(base) (\(number))"
                number += 1
            }
            used.insert(picture.description)
            return picture
        }
    }
}
