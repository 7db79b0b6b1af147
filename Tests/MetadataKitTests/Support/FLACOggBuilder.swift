import Foundation

@testable import MetadataKit

/// Builds small FLAC and Ogg files byte by byte for the format tests.
enum FLACOggBuilder {
    // MARK: Vorbis comments and pictures

    static func comment(vendor: String = "test vendor", _ fields: [String]) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(UInt32(vendor.utf8.count), .little)
        writer.write(Array(vendor.utf8))
        writer.write(UInt32(fields.count), .little)
        for field in fields {
            writer.write(UInt32(field.utf8.count), .little)
            writer.write(Array(field.utf8))
        }
        return writer.bytes
    }

    static func picture(
        type: UInt32 = 3, mime: String = "image/png", description: String = "", width: UInt32 = 3, height: UInt32 = 2,
        data: [UInt8] = ID3Builder.tinyPNG
    ) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(type)
        writer.write(UInt32(mime.utf8.count))
        writer.write(Array(mime.utf8))
        writer.write(UInt32(description.utf8.count))
        writer.write(Array(description.utf8))
        writer.write(width)
        writer.write(height)
        writer.write(UInt32(24))
        writer.write(UInt32(0))
        writer.write(UInt32(data.count))
        writer.write(data)
        return writer.bytes
    }

    // MARK: FLAC

    /// A 34-byte STREAMINFO body.
    static func streamInfo(sampleRate: Int = 44100, channels: Int = 2, bitsPerSample: Int = 16, totalSamples: UInt64 = 88200) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(UInt16(4096))
        writer.write(UInt16(4096))
        writer.write([UInt8](repeating: 0, count: 6)) // minimum and maximum frame size: unknown
        let packed = UInt64(sampleRate) << 44 | UInt64(channels - 1) << 41 | UInt64(bitsPerSample - 1) << 36 | totalSamples
        writer.write(packed)
        writer.write([UInt8](repeating: 0xAB, count: 16))
        return writer.bytes
    }

    /// `fLaC`, STREAMINFO, then `blocks` (type, body), the last flagged, then `audio`.
    static func flac(
        _ blocks: [(UInt8, [UInt8])], info: [UInt8] = streamInfo(), audio: [UInt8] = fakeAudio(1000),
        prefix: [UInt8] = []
    ) -> [UInt8] {
        var bytes = prefix + Array("fLaC".utf8)
        let all = [(UInt8(0), info)] + blocks
        for (index, block) in all.enumerated() {
            bytes += FLACBlock.header(type: block.0, isLast: index == all.count - 1, length: block.1.count) + block.1
        }
        return bytes + audio
    }

    /// Bytes that stand for FLAC frames (a frame sync code, then a pattern).
    static func fakeAudio(_ count: Int) -> [UInt8] {
        [0xFF, 0xF8] + (0..<max(0, count - 2)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    }

    // MARK: Ogg

    /// A Vorbis identification header (Vorbis I §4.2.2).
    static func vorbisID(channels: UInt8 = 2, rate: UInt32 = 44100, nominal: Int32 = 128000) -> [UInt8] {
        var writer = ByteWriter()
        writer.write([1] + Array("vorbis".utf8))
        writer.write(UInt32(0), .little)
        writer.write(channels)
        writer.write(rate, .little)
        writer.write(UInt32(0), .little)
        writer.write(UInt32(bitPattern: nominal), .little)
        writer.write(UInt32(0), .little)
        writer.write(UInt8(0xB8))
        writer.write(UInt8(1))
        return writer.bytes
    }

    static func vorbisComment(_ fields: [String], vendor: String = "test vendor") -> [UInt8] {
        [3] + Array("vorbis".utf8) + comment(vendor: vendor, fields) + [1]
    }

    /// A stand-in setup header: "\x05vorbis" and `count` patterned bytes.
    static func vorbisSetup(_ count: Int = 600) -> [UInt8] {
        [5] + Array("vorbis".utf8) + (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
    }

    /// An Ogg Vorbis file: BOS page, header pages, then `audioPages` pages of
    /// `audioPacketSize`-byte packets with granules 1024, 2048, …; optionally
    /// a second logical stream (unknown codec) interleaved.
    static func oggVorbis(
        fields: [String], setupSize: Int = 600, audioPages: Int = 4, rate: UInt32 = 44100,
        otherStream: Bool = false, otherFirst: Bool = false
    ) -> [UInt8] {
        let serial: UInt32 = 0x1234, other: UInt32 = 0x9999
        var pages: [[UInt8]] = []
        let otherBOS = OggPage.paginate(
            [Array("\u{80}unknown".utf8) + [0, 0, 0]], serial: other, firstSequence: 0, firstFlags: OggPage.beginning)
        if otherStream && otherFirst { pages += otherBOS }
        pages += OggPage.paginate([vorbisID(rate: rate)], serial: serial, firstSequence: 0, firstFlags: OggPage.beginning)
        if otherStream && !otherFirst { pages += otherBOS }
        let headers = OggPage.paginate([vorbisComment(fields), vorbisSetup(setupSize)], serial: serial, firstSequence: 1)
        pages += headers
        var sequence = UInt32(1 + headers.count)
        for index in 0..<audioPages {
            let packets = (0..<3).map { packet in (0..<100).map { UInt8(truncatingIfNeeded: $0 + packet + index) } }
            var page = OggPage.paginate(packets, serial: serial, firstSequence: sequence, granule: UInt64(1024 * (index + 1)))
            if index == audioPages - 1 { page = setEOS(page) }
            pages += page
            sequence += 1
            if otherStream {
                pages += OggPage.paginate(
                    [[UInt8](repeating: UInt8(index), count: 50)], serial: other, firstSequence: UInt32(index + 1),
                    granule: UInt64(index))
            }
        }
        return pages.flatMap { $0 }
    }

    /// The page with the EOS flag set and its CRC recomputed.
    static func setEOS(_ pages: [[UInt8]]) -> [[UInt8]] {
        guard var last = pages.last, let page = OggPage.parse(last[...], offset: 0) else { return pages }
        var flagged = page
        flagged.headerType |= OggPage.ending
        last = flagged.serialized(body: Array(last[page.headerLength...]))
        return pages.dropLast() + [last]
    }

    /// Every page of `bytes`, in order (stops at the first non-page).
    static func pages(_ url: URL) throws -> [OggPage] {
        let source = try FileSource(url: url)
        var pages: [OggPage] = []
        var offset: Int64 = 0
        while offset < source.size, let page = try OggPage.read(from: source, at: offset) {
            pages.append(page)
            offset = page.end
        }
        return pages
    }

    /// Checks every page: CRC right, sequence numbers 0, 1, 2, … per stream,
    /// file fully covered. Returns problems found (empty when fine).
    static func pageProblems(_ url: URL) throws -> [String] {
        let source = try FileSource(url: url)
        let pages = try pages(url)
        var problems: [String] = []
        if pages.last?.end != source.size { problems.append("pages don't cover the file") }
        var next: [UInt32: UInt32] = [:]
        for page in pages {
            if try OggCRC.checksum(of: page, in: source) != page.checksum { problems.append("bad CRC at \(page.offset)") }
            let expected = next[page.serial] ?? page.sequence
            if page.sequence != expected { problems.append("sequence \(page.sequence) where \(expected) was due at \(page.offset)") }
            next[page.serial] = page.sequence &+ 1
        }
        return problems
    }

    /// Changes 1–3 random bytes of `file` in `range`, `count` times (SplitMix64,
    /// fixed seed); each result is read and, when it reads, planned for a save
    /// with a changed title. Returns how often each outcome happened: "parsed",
    /// "planned", a MediaError code, or "non-MediaError".
    static func corruptionOutcomes(
        _ file: [UInt8], range: Range<Int>, count: Int, in directory: URL,
        read: (FileSource, URL) throws -> ParsedFile,
        plan: (FileSource, [MetadataItem]) throws -> FileEditPlan
    ) throws -> [String: Int] {
        var generator = SplitMix64(state: 0x9E37_79B9_7F4A_7C15)
        func next() -> UInt64 { generator.next() }
        let url = directory.appendingPathComponent("fuzz")
        var outcomes: [String: Int] = [:]
        func record(_ body: () throws -> Void, success: String) {
            do {
                try body()
                outcomes[success, default: 0] += 1
            } catch let error as MediaError { outcomes[error.code.rawValue, default: 0] += 1 } catch {
                outcomes["non-MediaError", default: 0] += 1
            }
        }
        for _ in 0..<count {
            var bytes = file
            for _ in 0..<Int(1 + next() % 3) {
                let position = range.lowerBound + Int(next() % UInt64(range.count))
                bytes[position] = next() % 4 == 0 ? [0x00, 0xFF, 0x01, 0x7F][Int(next() % 4)] : UInt8(truncatingIfNeeded: next())
            }
            try Data(bytes).write(to: url)
            let source = try FileSource(url: url)
            var parsed: ParsedFile?
            record({ parsed = try read(source, url) }, success: "parsed")
            guard let parsed else { continue }
            var items = parsed.items.filter { $0.key != "TITLE" }
            items.append(MetadataItem(keySpace: .vorbis, key: "TITLE", value: .string("fuzzed"), dataType: .utf8))
            record({ _ = try plan(source, items) }, success: "planned")
        }
        return outcomes
    }

    static func write(_ bytes: [UInt8], _ name: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }
}

extension FLACOggBuilder {
    /// A one-second 440 Hz sine encoded by ffmpeg into `directory`; `kind`:
    /// flac, vorbis, opus, speex, or anything else for FLAC in Ogg.
    static func ffmpegSine(_ kind: String, in directory: URL, channels: Int? = nil) throws -> URL {
        let (codec, name): (String, String) =
            switch kind {
            case "flac": ("flac", "a.flac")
            case "vorbis": ("libvorbis", "a.ogg")
            case "opus": ("libopus", "a.opus")
            case "speex": ("libspeex", "a.spx")
            default: ("flac", "a.oga")
            }
        let url = directory.appendingPathComponent(name)
        let layout = channels.map { ["-ac", String($0)] } ?? []
        try TestSupport.runChecked(
            "ffmpeg",
            ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=1"]
                + layout + ["-c:a", codec, url.path])
        return url
    }
}
