#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The properties of an ASF file: duration and maximum bit rate from the
/// File Properties Object (§3.2), audio and video from the Stream
/// Properties Objects (top level and inside Extended Stream Properties).
enum ASFProperties {
    static func properties(_ header: ASFHeader) -> (properties: MediaProperties, warnings: [MediaWarning]) {
        var properties = MediaProperties()
        var warnings: [MediaWarning] = []
        var maximumBitrate: Int?
        if let file = header.objects.first(where: { $0.guid == .fileProperties }) {
            var data = file.dataReader
            do {
                try data.skip(40)
                let playDuration = try data.readUInt64(.little)
                try data.skip(8)
                let preroll = try data.readUInt64(.little)
                let flags = try data.readUInt32(.little)
                try data.skip(8)
                maximumBitrate = Int(try data.readUInt32(.little))
                // Play duration counts 100 ns units and includes the preroll (ms);
                // a broadcast file (flag bit 0) leaves it 0.
                if flags & 1 == 0 || playDuration != 0 {
                    properties.duration = max(Double(playDuration) / 1e7 - Double(preroll) / 1000, 0)
                }
            } catch {
                warnings.append(ASFObject.warning(error))
            }
        }
        var streams: [ASFStreamProperties] = []
        var seen = Set<Int>()
        func add(_ data: inout ByteReader) {
            do {
                let stream = try ASFStreamProperties(parsing: &data)
                if seen.insert(stream.number).inserted { streams.append(stream) }
            } catch {
                warnings.append(ASFObject.warning(error))
            }
        }
        for object in header.objects where object.guid == .streamProperties {
            var data = object.dataReader
            add(&data)
        }
        for object in header.extensionObjects where object.guid == .extendedStreamProperties {
            var data = object.dataReader
            if var embedded = try? ASFStreamProperties.embedded(in: &data) { add(&embedded) }
        }
        for stream in streams {
            var entry = AssetTrack(
                id: UInt32(clamping: stream.number), mediaType: stream.kind,
                codecName: stream.codecID.map(ASFStreamProperties.codecName) ?? stream.fourCC)
            entry.bitrate = stream.bitrate
            entry.sampleRate = stream.sampleRate
            entry.channels = stream.channels
            entry.width = stream.width
            entry.height = stream.height
            properties.streams.append(entry)
        }
        if let audio = streams.first(where: { $0.kind == .audio }) {
            properties.codec = audio.codecID.map(ASFStreamProperties.codecName)
            properties.sampleRate = audio.sampleRate
            properties.channels = audio.channels
            properties.bitrate = audio.bitrate
            properties.bitsPerSample = audio.bitsPerSample
        }
        if let video = streams.first(where: { $0.kind == .video }) {
            properties.width = video.width
            properties.height = video.height
            if properties.codec == nil { properties.codec = video.fourCC }
        }
        if properties.bitrate == nil || properties.bitrate == 0, let maximumBitrate, maximumBitrate > 0 {
            properties.bitrate = maximumBitrate
        }
        return (properties, warnings)
    }
}
