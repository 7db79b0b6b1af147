#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The chunks of a DSF file (Sony "DSF File Format Specification" 1.01),
/// all little-endian:
///
///     'DSD ' chunk  28 bytes: ID, chunk size (28), total file size, pointer to the metadata chunk (0: none)
///     'fmt ' chunk  52 bytes: ID, chunk size (52), format version (1), format ID (0: DSD raw),
///                   channel type, channel num, sampling frequency, bits per sample (1 or 8),
///                   sample count (per channel), block size per channel (4096), reserved
///     'data' chunk  ID, chunk size (12 + n), n bytes of sample data
///     metadata      an ID3v2 tag, where the pointer says
///
/// Read forgivingly: a total size that disagrees with the file, a pointer
/// into the header or the sample data, past the end of the file or to bytes
/// that are no ID3 tag, and unknown format fields are warnings; a file that
/// ends inside its data chunk is read-only (``isTruncated``). Only headers
/// that are not DSF at all throw.
struct DSFStructure {
    /// The 'fmt ' chunk's fields.
    var formatVersion: UInt32
    var formatID: UInt32
    var channelType: UInt32
    var channelCount: UInt32
    var samplingFrequency: UInt32
    var bitsPerSample: UInt32
    var sampleCount: UInt64
    var blockSizePerChannel: UInt32
    /// The 'data' chunk's sample bytes (as declared; see ``isTruncated``).
    var sampleData: Range<Int64>
    /// Where the 'data' chunk ends (header included), at most the end of the file.
    var dataEnd: Int64
    /// The file ends before the data chunk does.
    var isTruncated: Bool
    /// The metadata pointer as stored.
    var metadataPointer: UInt64
    /// The bytes from the metadata pointer to the end of the file, when the
    /// pointer leads past the sample data to an ID3v2 tag.
    var tagRegion: Range<Int64>?
    var warnings: [MediaWarning] = []

    /// The 'DSD ' chunk's length, and the offsets of its total-size and pointer fields.
    static let headerLength: Int64 = 28
    static let formatChunkLength: Int64 = 52
    static let dataHeaderLength: Int64 = 12
}

extension DSFStructure {
    init(parsing source: FileSource) throws {
        try source.require(0, Self.headerLength, "the DSF 'DSD ' chunk")
        var header = try source.reader(at: 0, count: Int(Self.headerLength))
        guard try header.readFourCC() == "DSD " else {
            throw MediaError(.unsupportedFormat, "not a DSF file: no 'DSD ' chunk", offset: 0)
        }
        var warnings: [MediaWarning] = []
        let headerSize = try header.readUInt64(.little)
        let totalSize = try header.readUInt64(.little)
        let pointer = try header.readUInt64(.little)
        // The spec fixes the chunk at 28 bytes; the 'fmt ' chunk follows it.
        var formatOffset = Self.headerLength
        if headerSize != UInt64(Self.headerLength) {
            warnings.append(MediaWarning(.malformed, "the 'DSD ' chunk says it is \(headerSize) bytes, not 28; read as 28", offset: 4))
        }

        try source.require(formatOffset, Self.formatChunkLength, "the DSF 'fmt ' chunk")
        var format = try source.reader(at: formatOffset, count: Int(Self.formatChunkLength))
        guard try format.readFourCC() == "fmt " else {
            throw MediaError(.malformed, "the DSF file has no 'fmt ' chunk after its 'DSD ' chunk", offset: formatOffset)
        }
        let formatSize = try format.readUInt64(.little)
        guard formatSize >= UInt64(Self.formatChunkLength), formatSize <= UInt64(source.size - formatOffset) else {
            throw MediaError(
                .sizeOutOfRange, "the 'fmt ' chunk size \(formatSize) is less than 52 or runs past the end of the file",
                offset: formatOffset + 4)
        }
        let version = try format.readUInt32(.little)
        let formatID = try format.readUInt32(.little)
        let channelType = try format.readUInt32(.little)
        let channels = try format.readUInt32(.little)
        let frequency = try format.readUInt32(.little)
        let bits = try format.readUInt32(.little)
        let samples = try format.readUInt64(.little)
        let blockSize = try format.readUInt32(.little)
        if version != 1 || formatID != 0 {
            warnings.append(
                MediaWarning(
                    .unsupportedFeature, "format version \(version), format ID \(formatID) (the spec knows version 1, ID 0: DSD raw)",
                    offset: formatOffset + 12))
        }
        formatOffset += Int64(formatSize)

        try source.require(formatOffset, Self.dataHeaderLength, "the DSF 'data' chunk header")
        var data = try source.reader(at: formatOffset, count: Int(Self.dataHeaderLength))
        guard try data.readFourCC() == "data" else {
            throw MediaError(.malformed, "the DSF file has no 'data' chunk after its 'fmt ' chunk", offset: formatOffset)
        }
        let dataSize = try data.readUInt64(.little)
        guard dataSize >= UInt64(Self.dataHeaderLength), dataSize <= UInt64(Int64.max - formatOffset) else {
            throw MediaError(.sizeOutOfRange, "the 'data' chunk size \(dataSize) is impossible", offset: formatOffset + 4)
        }
        let declaredEnd = formatOffset + Int64(dataSize)
        let isTruncated = declaredEnd > source.size
        if isTruncated {
            warnings.append(
                MediaWarning(
                    .truncated, "the 'data' chunk of \(dataSize) bytes runs past the end of the file (\(source.size) bytes)",
                    offset: formatOffset + 4))
        }
        let dataEnd = min(declaredEnd, source.size)

        if totalSize != UInt64(source.size) {
            warnings.append(
                MediaWarning(.malformed, "the total file size says \(totalSize) bytes, the file has \(source.size)", offset: 12))
        }
        var region: Range<Int64>?
        if pointer != 0 {
            if pointer < UInt64(dataEnd) {
                warnings.append(
                    MediaWarning(
                        .malformed, "the metadata pointer (\(pointer)) points into the header or the sample data; no tag is read there",
                        offset: 20))
            } else if pointer >= UInt64(source.size) {
                warnings.append(
                    MediaWarning(.sizeOutOfRange, "the metadata pointer (\(pointer)) points past the end of the file", offset: 20))
            } else {
                region = Int64(pointer)..<source.size
            }
        }
        self.init(
            formatVersion: version, formatID: formatID, channelType: channelType, channelCount: channels,
            samplingFrequency: frequency, bitsPerSample: bits, sampleCount: samples, blockSizePerChannel: blockSize,
            sampleData: (formatOffset + Self.dataHeaderLength)..<declaredEnd, dataEnd: dataEnd, isTruncated: isTruncated,
            metadataPointer: pointer, tagRegion: region, warnings: warnings)
    }

    /// Duration, bit rate, rate, channels, bits per sample and codec from the
    /// 'fmt ' chunk: duration = sample count / sampling frequency, bit rate =
    /// frequency × bits per sample × channels (the DSD stream's rate).
    var properties: MediaProperties {
        var properties = MediaProperties()
        properties.codec = "DSD"
        properties.channels = Int(channelCount)
        properties.sampleRate = Int(samplingFrequency)
        properties.bitsPerSample = Int(bitsPerSample)
        if samplingFrequency > 0 {
            properties.duration = Double(sampleCount) / Double(samplingFrequency)
            let bitrate = Double(samplingFrequency) * Double(bitsPerSample) * Double(channelCount)
            properties.bitrate = bitrate < 1e15 ? Int(bitrate) : nil
        }
        return properties
    }
}
