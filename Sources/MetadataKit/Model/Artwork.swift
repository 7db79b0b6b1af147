#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An embedded picture: cover art and friends.
///
/// Reading a file records where the image lives and parses only its header
/// (for the pixel size); the image bytes are read by ``data()`` when asked for.
public struct Artwork: Sendable, Hashable {
    /// What the picture shows, with ID3v2's numbering (APIC picture type).
    public struct PictureType: RawRepresentable, Hashable, Sendable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Any other picture (`$00`).
        public static let other = PictureType(rawValue: 0)
        /// A 32×32 pixel PNG file icon (`$01`; ID3v2 allows one per file).
        public static let fileIcon = PictureType(rawValue: 1)
        /// Another file icon, of any size or format (`$02`).
        public static let otherFileIcon = PictureType(rawValue: 2)
        /// The front cover (`$03`); the picture players show.
        public static let frontCover = PictureType(rawValue: 3)
        /// The back cover (`$04`).
        public static let backCover = PictureType(rawValue: 4)
        /// A page of the leaflet or booklet (`$05`).
        public static let leaflet = PictureType(rawValue: 5)
        /// The medium itself, such as the label side of a CD (`$06`).
        public static let media = PictureType(rawValue: 6)
        /// The lead artist, lead performer or soloist (`$07`).
        public static let leadArtist = PictureType(rawValue: 7)
        /// The artist or performer (`$08`).
        public static let artist = PictureType(rawValue: 8)
        /// The conductor (`$09`).
        public static let conductor = PictureType(rawValue: 9)
        /// The band or orchestra (`$0A`).
        public static let band = PictureType(rawValue: 10)
        /// The composer (`$0B`).
        public static let composer = PictureType(rawValue: 11)
        /// The lyricist or text writer (`$0C`).
        public static let lyricist = PictureType(rawValue: 12)
        /// The recording location (`$0D`).
        public static let recordingLocation = PictureType(rawValue: 13)
        /// A picture taken during the recording (`$0E`).
        public static let duringRecording = PictureType(rawValue: 14)
        /// A picture taken during the performance (`$0F`).
        public static let duringPerformance = PictureType(rawValue: 15)
        /// A still from a movie or video (`$10`).
        public static let screenCapture = PictureType(rawValue: 16)
        /// "A bright coloured fish", as ID3v2 names it (`$11`).
        public static let brightColouredFish = PictureType(rawValue: 17)
        /// An illustration (`$12`).
        public static let illustration = PictureType(rawValue: 18)
        /// The band's or artist's logotype (`$13`).
        public static let bandLogo = PictureType(rawValue: 19)
        /// The publisher's or studio's logotype (`$14`).
        public static let publisherLogo = PictureType(rawValue: 20)

        private static let names = [
            "other", "fileIcon", "otherFileIcon", "front", "back", "leaflet", "media",
            "leadArtist", "artist", "conductor", "band", "composer", "lyricist",
            "recordingLocation", "duringRecording", "duringPerformance", "screenCapture",
            "brightColouredFish", "illustration", "bandLogo", "publisherLogo",
        ]

        /// A short name: `front`, `back`, `artist`, …; `type<N>` beyond the list.
        public var name: String {
            Int(rawValue) < Self.names.count ? Self.names[Int(rawValue)] : "type\(rawValue)"
        }

        /// The type with this ``name`` (`front`, `back`, …, or `type<N>`).
        public init?(name: String) {
            if let index = Self.names.firstIndex(of: name) {
                rawValue = UInt8(index)
            } else if name.hasPrefix("type"), let number = UInt8(name.dropFirst(4)) {
                rawValue = number
            } else {
                return nil
            }
        }
    }

    enum Storage: Sendable, Hashable {
        case bytes(Data)
        case file(URL, offset: Int64)
        /// Base64 text (an Ogg `METADATA_BLOCK_PICTURE` field) whose decoded
        /// bytes `imageOffset..<imageOffset+count` are the image, decoded by ``data()``.
        case base64(String, imageOffset: Int, count: Int)

        /// Pictures in memory are equal when their image bytes are, however they are held.
        static func == (a: Storage, b: Storage) -> Bool {
            switch (a, b) {
            case (.file(let left, let leftOffset), .file(let right, let rightOffset)):
                return left == right && leftOffset == rightOffset
            case (.base64(let left, let leftOffset, let leftCount), .base64(let right, let rightOffset, let rightCount))
            where left == right && leftOffset == rightOffset:
                return leftCount == rightCount
            case (.file, _), (_, .file):
                return false
            default:
                guard let left = a.memoryBytes, let right = b.memoryBytes else { return false }
                return left == right
            }
        }

        /// Only the kind: the image bytes' length is hashed with the ``Artwork``, and hashing
        /// them all (or decoding base64 to hash it) would cost more than the rare collision.
        func hash(into hasher: inout Hasher) {
            switch self {
            case .bytes, .base64: hasher.combine(0)
            case .file(let url, let offset):
                hasher.combine(url)
                hasher.combine(offset)
            }
        }

        /// The image bytes of a picture in memory (nil for one in a file, or base64 text that
        /// doesn't decode).
        var memoryBytes: Data? {
            switch self {
            case .bytes(let data): return data
            case .file: return nil
            case .base64(let text, let offset, let count):
                return Base64Pieces.image(text, offset: offset, count: count).map { Data($0) }
            }
        }
    }

    /// MIME type of the image, e.g. `image/jpeg`.
    public var mimeType: String
    /// What the picture shows.
    public var pictureType: PictureType
    /// Free-text description (ID3 APIC); empty when the format has none.
    public var description: String
    /// Pixel width from the image header, when it could be read.
    public var width: Int?
    /// Pixel height from the image header, when it could be read.
    public var height: Int?
    /// Size of the image in bytes.
    public let byteCount: Int
    let storage: Storage

    /// Where the image lies in its file, when it was read from one and not
    /// loaded. (Stored, set from `storage`: a computed property pattern-matching
    /// `storage`, inlined into the FLAC writer, crashed the Swift 6.3.1 optimizer.)
    let fileOffset: Int64?

    /// A picture from image bytes in memory. The MIME type and pixel size are
    /// taken from the image header when `mimeType` is nil.
    public init(data: Data, mimeType: String? = nil, pictureType: PictureType = .frontCover, description: String = "") {
        self.init(
            info: ImageInfo(bytes: [UInt8](data)), mimeType: mimeType, pictureType: pictureType, description: description,
            byteCount: data.count, storage: .bytes(data))
    }

    /// A picture stored in a file at `offset`, `byteCount` bytes long; the header is
    /// parsed from `source` now, the bytes are read later from `url`.
    init(
        source: FileSource, url: URL, offset: Int64, byteCount: Int, mimeType: String?,
        pictureType: PictureType, description: String
    ) {
        self.init(
            info: ImageInfo(source: source, offset: offset, byteCount: byteCount), mimeType: mimeType,
            pictureType: pictureType, description: description, byteCount: byteCount, storage: .file(url, offset: offset))
    }

    /// A picture whose image is bytes `imageOffset..<imageOffset+byteCount` of what
    /// canonical base64 `text` decodes to (``Base64Pieces``); `info` from its header.
    init(
        base64 text: String, imageOffset: Int, byteCount: Int, info: ImageInfo?, mimeType: String?,
        pictureType: PictureType, description: String
    ) {
        self.init(
            info: info, mimeType: mimeType, pictureType: pictureType, description: description, byteCount: byteCount,
            storage: .base64(text, imageOffset: imageOffset, count: byteCount))
    }

    private init(info: ImageInfo?, mimeType: String?, pictureType: PictureType, description: String, byteCount: Int, storage: Storage) {
        self.mimeType = Self.normalizedMIMEType(mimeType) ?? info?.mimeType ?? "application/octet-stream"
        self.pictureType = pictureType
        self.description = description
        self.width = info?.width
        self.height = info?.height
        self.byteCount = byteCount
        self.storage = storage
        switch storage {
        case .file(_, let offset): fileOffset = offset
        case .bytes, .base64: fileOffset = nil
        }
    }

    /// The image bytes. A picture read from a file and not loaded is read
    /// now, on a thread outside Swift's cooperative pool.
    ///
    /// - Throws: ``MediaError`` — `io` (the file can't be read any more),
    ///   `truncated` (it is shorter now), `malformed` (base64 text that doesn't decode).
    public func data() async throws(MediaError) -> Data {
        guard case .file = storage else { return try readBytes() }
        return try await BlockingWork.loads.run { [self] () throws(MediaError) -> Data in try readBytes() }
    }

    /// The image bytes, read now on the calling thread: for the writers and
    /// the checks, which run on a thread that may block.
    package func readBytes() throws(MediaError) -> Data {
        switch storage {
        case .bytes(let data):
            return data
        case .base64:
            guard let data = storage.memoryBytes else {
                throw MediaError(.malformed, "the picture's base64 text doesn't decode to its \(byteCount) bytes")
            }
            return data
        case .file(let url, let offset):
            return try MediaError.catching(path: url.path) {
                let source = try FileSource(url: url)
                return Data(try source.getBytes(at: offset, count: byteCount))
            }
        }
    }

    /// ID3v2.2 gives a three-letter image format, ID3v2.3+ a MIME type; both map
    /// to a MIME type here. Empty and `-->` (a link) give nil.
    static func normalizedMIMEType(_ text: String?) -> String? {
        guard let text = text.map({ String($0.trimmingSpaces) }), !text.isEmpty, text != "-->" else { return nil }
        let lowered = text.lowercased()
        switch lowered {
        case "jpg", "jpeg", "image/jpg": return "image/jpeg"
        case "png": return "image/png"
        case "gif": return "image/gif"
        case "bmp": return "image/bmp"
        // `utf8.contains`: Foundation's `String.contains(_:)` goes through NSString (a read-speed cost).
        default: return lowered.utf8.contains(UInt8(ascii: "/")) ? lowered : "image/" + lowered
        }
    }
}
