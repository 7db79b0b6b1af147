#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MP4AssetBoxes {
    /// The asset box type an item's key names (the key up to a colon); nil
    /// for anything else.
    static func boxType(of key: String) -> FourCC? {
        let name = key.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? key
        guard name.utf8.count == 4, name.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        let type = FourCC(stringLiteral: name)
        return types.contains(type) ? type : nil
    }

    /// `3gpp` items grouped into the boxes they make, in order: each item
    /// named by a box type (`loci`) opens a box of that type; the n-th item
    /// of a part key (`loci:latitude`) goes to the n-th box of its type
    /// (wherever it stands in the list: an edited item is often appended).
    /// In each box the named item comes first, then the parts in reading
    /// order. An item that names no known box or part is a box of its own
    /// (which ``box(_:trailer:)`` refuses).
    static func groups(_ items: [MetadataItem]) -> [[MetadataItem]] {
        var boxes: [[MetadataItem]] = []
        var boxesOfType: [FourCC: [Int]] = [:]
        var parted: [MetadataItem] = []
        for item in items {
            guard let type = boxType(of: item.key) else {
                boxes.append([item])
                continue
            }
            if item.key == type.description {
                boxesOfType[type, default: []].append(boxes.count)
                boxes.append([item])
            } else if let part = item.key.split(separator: ":", maxSplits: 1).last, parts[type]?.contains(String(part)) == true {
                parted.append(item)
            } else {
                boxes.append([item])
            }
        }
        var seen: [String: Int] = [:]
        for item in parted {
            let type = boxType(of: item.key)!
            let index = seen[item.key, default: 0]
            seen[item.key] = index + 1
            if index < boxesOfType[type, default: []].count {
                boxes[boxesOfType[type]![index]].append(item)
            } else {
                boxesOfType[type, default: []].append(boxes.count)
                boxes.append([item])
            }
        }
        return boxes.map { box in
            guard let type = boxType(of: box[0].key), let names = parts[type] else { return box }
            func rank(_ item: MetadataItem) -> Int {
                item.key == type.description ? -1 : names.firstIndex(of: String(item.key.dropFirst(5))) ?? names.count
            }
            return box.sorted { rank($0) < rank($1) }
        }
    }

    /// A new asset box for `item` (a one-field box), `trailer` after it.
    static func box(_ item: MetadataItem, trailer: [UInt8] = []) throws -> [UInt8] {
        try box([item], trailer: trailer)
    }

    /// A new asset box for the items of one group of ``groups(_:)``
    /// (strings UTF-8, or UTF-16 with a byte-order mark when the item was
    /// UTF-16; language 0 without one), `trailer` after its last field.
    /// A part left out gets its default: 0 (a code of four zero bytes),
    /// `earth` for `loci:body`, an empty string.
    static func box(_ items: [MetadataItem], trailer: [UInt8] = []) throws -> [UInt8] {
        guard let first = items.first, let type = boxType(of: first.key), first.key == type.description else {
            let key = items.first.map { "'3gpp:\($0.key)'" } ?? "nothing"
            if let first = items.first, let type = boxType(of: first.key), parts[type] != nil {
                throw MediaError(
                    .invalidValue, "\(key) needs a '3gpp:\(type)' item in the same box (its string, which may be empty)")
            }
            throw MediaError(.invalidValue, "\(key) is not a 3GPP asset box this writer knows")
        }
        let main = first
        func part(_ name: String) -> MetadataItem? { items.first { $0.key == "\(type):\(name)" } }
        func text(_ name: String) -> String? { part(name)?.value.stringValue }
        var writer = ByteWriter()
        writer.write(UInt32(0))
        if type == "yrrc" {
            let text = main.value.stringValue ?? ""
            guard let year = UInt16(text.prefix(4)), text.prefix(4).count == 4 else {
                throw MediaError(.invalidValue, "'3gpp:yrrc' holds a year, not '\(text)'")
            }
            writer.write(year)
            writer.write(trailer)
            return MP4MetadataEncoder.box(type, writer.bytes)
        }
        if type == "clsf" || type == "rtng" {
            writer.write(try code(text("entity"), key: "\(type):entity"))
            if type == "clsf" {
                writer.write(try number(text("table"), key: "clsf:table", as: UInt16.self))
            } else {
                writer.write(try code(text("criteria"), key: "rtng:criteria"))
            }
        }
        writer.write(main.language.map(packed) ?? 0)
        if type == "kywd" {
            let keywords = main.value.stringValues
            guard keywords.count <= 255 else { throw MediaError(.invalidValue, "'3gpp:kywd' holds at most 255 keywords") }
            writer.write(UInt8(keywords.count))
            for keyword in keywords {
                let bytes = encoded(keyword, utf16: main.isUTF16)
                guard bytes.count <= 255 else {
                    throw MediaError(.invalidValue, "the keyword '\(keyword)' is longer than 255 bytes, which 'kywd' can't hold")
                }
                writer.write(UInt8(bytes.count))
                writer.write(bytes)
            }
        } else {
            guard let string = main.value.stringValue else {
                throw MediaError(.invalidValue, "'3gpp:\(type)' holds text")
            }
            writer.write(encoded(string, utf16: main.isUTF16))
        }
        if type == "loci" {
            writer.write(try number(text("role"), key: "loci:role", as: UInt8.self))
            for (name, limit) in [("longitude", 180.0), ("latitude", 90.0), ("altitude", 32767.0)] {
                writer.write(UInt32(bitPattern: try fixed(text(name), key: "loci:\(name)", limit: limit)))
            }
            writer.write(encoded(text("body") ?? "earth", utf16: part("body")?.isUTF16 ?? false))
            writer.write(encoded(text("notes") ?? "", utf16: part("notes")?.isUTF16 ?? false))
        }
        writer.write(trailer)
        return MP4MetadataEncoder.box(type, writer.bytes)
    }

    /// A NUL-terminated string: UTF-8, or UTF-16 big-endian after a byte-order mark.
    static func encoded(_ text: String, utf16: Bool) -> [UInt8] {
        guard utf16 else { return Array(text.utf8) + [0] }
        var writer = ByteWriter()
        writer.write([0xFE, 0xFF])
        for unit in text.utf16 { writer.write(unit) }
        writer.write(UInt16(0))
        return writer.bytes
    }

    /// A four-character code from its text (see ``text(of:)``); 0 when absent.
    static func code(_ text: String?, key: String) throws -> UInt32 {
        guard let text else { return 0 }
        var value: UInt32?
        if text.hasPrefix("0x"), text.utf8.count == 10 {
            value = UInt32(text.dropFirst(2), radix: 16)
        } else if text.utf8.count == 4 {
            value = text.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        guard let value, Self.text(of: value) == text else {
            throw MediaError(.invalidValue, "'3gpp:\(key)' holds a four-character code (or 0x and 8 hex digits), not '\(text)'")
        }
        return value
    }

    /// A whole number written as its plain decimal text; 0 when absent.
    static func number<Value: FixedWidthInteger>(_ text: String?, key: String, as: Value.Type) throws -> Value {
        guard let text else { return 0 }
        guard let value = Value(text), String(value) == text else {
            throw MediaError(.invalidValue, "'3gpp:\(key)' holds a whole number from 0 to \(Value.max), not '\(text)'")
        }
        return value
    }

    /// A 16.16 fixed-point value from decimal text within ±`limit`; 0 when
    /// absent. The text must be what the value reads back as (see
    /// ``decimal(fixed:)``: at most four decimal places always are), so the
    /// save's check finds it unchanged.
    static func fixed(_ text: String?, key: String, limit: Double) throws -> Int32 {
        guard let text else { return 0 }
        guard let number = Double(text), number.isFinite, abs(number) <= limit else {
            throw MediaError(.invalidValue, "'3gpp:\(key)' holds a number from -\(Int(limit)) to \(Int(limit)), not '\(text)'")
        }
        let value = Int32((number * 65536).rounded())
        let stored = decimal(fixed: value)
        guard stored == text else {
            throw MediaError(
                .invalidValue, "'3gpp:\(key)' is stored in steps of 1/65536 and would read back as '\(stored)', not '\(text)'")
        }
        return value
    }

    /// An ISO 639-2/T code packed in 15 bits; `und` for anything else.
    static func packed(_ language: String) -> UInt16 {
        let letters = Array(language.utf8)
        guard letters.count == 3, letters.allSatisfy({ $0 >= 0x61 && $0 <= 0x7A }) else { return 0x55C4 }
        return letters.reduce(UInt16(0)) { $0 << 5 | UInt16($1 - 0x60) }
    }
}

extension MetadataItem {
    /// Whether the item was stored as UTF-16.
    fileprivate var isUTF16: Bool { dataType == .utf16 || dataType == .utf16BigEndian }
}
