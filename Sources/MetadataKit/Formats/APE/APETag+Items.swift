#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension APETagItem {
    /// Most bytes searched for the zero after a picture's file name.
    static let pictureNameLimit = 4096

    /// The item in the model (key space ``MetadataKeySpace/ape``, key
    /// uppercased):
    /// - text: UTF-8, `.string`, or `.strings` when zero bytes separate
    ///   several values (invalid UTF-8 is read with replacement characters);
    /// - external locator: the same, with data type ``MetadataDataType/apeLocator``;
    /// - binary under a `COVER ART (…)` key: a `.picture` whose description is
    ///   the file name before the first zero byte; its image stays in the file;
    /// - other binary (and the reserved kind 3): `.data`.
    func metadataItem(source: FileSource, url: URL) throws -> MetadataItem {
        let key = uppercasedKey
        switch kind {
        case .text, .locator:
            let bytes = try source.getBytes(at: valueOffset, count: valueSize)
            let values = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            let value: MetadataValue = values.count == 1 ? .string(values[0]) : .strings(values)
            return MetadataItem(keySpace: .ape, key: key, value: value, dataType: kind == .text ? .utf8 : .apeLocator)
        case .binary where APEPictureKeys.pictureType(ofKey: key) != nil:
            // The name is short: look in the first bytes (most likely in the
            // window that read the item's key) before reading further.
            var window = try source.getBytes(at: valueOffset, count: min(valueSize, 256))
            if window.firstIndex(of: 0) == nil && window.count < min(valueSize, Self.pictureNameLimit) {
                window = try source.getBytes(at: valueOffset, count: min(valueSize, Self.pictureNameLimit))
            }
            let zero = window.firstIndex(of: 0)
            let name = zero.map { String(decoding: window[..<$0], as: UTF8.self) } ?? ""
            let imageOffset = valueOffset + Int64(zero.map { $0 + 1 } ?? 0)
            let artwork = Artwork(
                source: source, url: url, offset: imageOffset, byteCount: Int(end - imageOffset), mimeType: nil,
                pictureType: APEPictureKeys.pictureType(ofKey: key) ?? .frontCover, description: name)
            return MetadataItem(keySpace: .ape, key: key, value: .picture(artwork), dataType: FLACPicture.dataType(of: artwork))
        case .binary, .reserved:
            let bytes = try source.getBytes(at: valueOffset, count: valueSize)
            return MetadataItem(keySpace: .ape, key: key, value: .data(Data(bytes)), dataType: .binary)
        }
    }
}

extension APETag {
    /// The tag's items in the model, in file order.
    func metadataItems(source: FileSource, url: URL) throws -> [MetadataItem] {
        try items.map { try $0.metadataItem(source: source, url: url) }
    }
}
