#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MP4ChapterEdit {
    /// The new chapter `trak` (nil without a track): `tkhd` (flags 0:
    /// disabled, not in the movie), `mdia` with `mdhd` (timescale 1000,
    /// `und`), `hdlr` `text`, `minf` with QuickTime's `gmhd` (`gmin` and
    /// `text`), `dinf` and an `stbl` whose one chunk starts at ``dataOffset``.
    var trak: [UInt8]? {
        guard let samples else { return nil }
        let total = durations.reduce(Int64(0)) { $0 + Int64($1) }
        let movieDuration = total * Int64(movieTimescale) / 1000
        var tkhd = ByteWriter()
        tkhd.write(UInt32(0)) // version 0, flags 0
        tkhd.write(UInt32(0))
        tkhd.write(UInt32(0)) // creation, modification
        tkhd.write(newTrackID)
        tkhd.write(UInt32(0))
        tkhd.write(UInt32(clamping: movieDuration))
        tkhd.write([UInt8](repeating: 0, count: 8 + 2 + 2 + 2 + 2)) // reserved, layer, group, volume, reserved
        tkhd.write(Self.identityMatrix)
        tkhd.write(UInt32(0))
        tkhd.write(UInt32(0)) // width, height
        var mdhd = ByteWriter()
        mdhd.write(UInt32(0))
        mdhd.write(UInt32(0))
        mdhd.write(UInt32(0))
        mdhd.write(UInt32(1000))
        mdhd.write(UInt32(clamping: total))
        mdhd.write(UInt16(0x55C4)) // 'und'
        mdhd.write(UInt16(0))
        var hdlr = ByteWriter()
        hdlr.write(UInt32(0))
        hdlr.write(UInt32(0))
        hdlr.write("text" as FourCC)
        hdlr.write([UInt8](repeating: 0, count: 12))
        hdlr.write(Array("Chapters".utf8) + [0])
        var gmin = ByteWriter()
        gmin.write(UInt32(0))
        gmin.write(UInt16(0x40)) // graphics mode: copy
        for _ in 0..<3 { gmin.write(UInt16(0x8000)) } // op color
        gmin.write(UInt32(0)) // balance, reserved
        let gmhd = MP4MetadataEncoder.box(
            "gmhd", MP4MetadataEncoder.box("gmin", gmin.bytes) + MP4MetadataEncoder.box("text", Self.identityMatrix))
        let url = MP4MetadataEncoder.box("url ", [0, 0, 0, 1])
        let dinf = MP4MetadataEncoder.box("dinf", MP4MetadataEncoder.box("dref", [0, 0, 0, 0, 0, 0, 0, 1] + url))
        let stbl = MP4MetadataEncoder.box("stbl", sampleDescription + timeToSample + sampleToChunk + sampleSizes(samples) + chunkOffsets)
        let minf = MP4MetadataEncoder.box("minf", gmhd + dinf + stbl)
        let mdia = MP4MetadataEncoder.box(
            "mdia", MP4MetadataEncoder.box("mdhd", mdhd.bytes) + MP4MetadataEncoder.box("hdlr", hdlr.bytes) + minf)
        return MP4MetadataEncoder.box("trak", MP4MetadataEncoder.box("tkhd", tkhd.bytes) + mdia)
    }

    /// The unity matrix of `tkhd` and the `text` media header (16.16 and 2.30 fixed point).
    static let identityMatrix: [UInt8] = {
        var writer = ByteWriter()
        for value: UInt32 in [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] { writer.write(value) }
        return writer.bytes
    }()

    /// `stsd` with one QuickTime text sample description (QTFF "Text sample
    /// description"): display flags, justification, background colour,
    /// default text box, reserved, font number and face, reserved,
    /// foreground colour (black) and an empty font name.
    private var sampleDescription: [UInt8] {
        var entry = ByteWriter()
        entry.write([UInt8](repeating: 0, count: 6))
        entry.write(UInt16(1)) // data reference index
        entry.write(UInt32(0)) // display flags
        entry.write(UInt32(0)) // justification
        entry.write([UInt8](repeating: 0, count: 6 + 8 + 8)) // background, box, reserved
        entry.write(UInt16(0))
        entry.write(UInt16(0)) // font number, face
        entry.write([UInt8](repeating: 0, count: 3 + 6)) // reserved, foreground
        entry.write(UInt8(0)) // font name
        return MP4MetadataEncoder.box("stsd", [0, 0, 0, 0, 0, 0, 0, 1] + MP4MetadataEncoder.box("text", entry.bytes))
    }

    /// `stts`: one entry per run of equal durations.
    private var timeToSample: [UInt8] {
        var runs: [(count: UInt32, duration: UInt32)] = []
        for duration in durations {
            if let last = runs.last, last.duration == duration {
                runs[runs.count - 1].count += 1
            } else {
                runs.append((1, duration))
            }
        }
        var writer = ByteWriter()
        writer.write(UInt32(0))
        writer.write(UInt32(runs.count))
        for run in runs {
            writer.write(run.count)
            writer.write(run.duration)
        }
        return MP4MetadataEncoder.box("stts", writer.bytes)
    }

    /// `stsc`: every sample in chunk 1.
    private var sampleToChunk: [UInt8] {
        var writer = ByteWriter()
        for value in [0, 1, 1, UInt32(durations.count), 1] { writer.write(UInt32(value)) }
        return MP4MetadataEncoder.box("stsc", writer.bytes)
    }

    private func sampleSizes(_ samples: [[UInt8]]) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(UInt32(0))
        writer.write(UInt32(0))
        writer.write(UInt32(samples.count))
        for sample in samples { writer.write(UInt32(sample.count)) }
        return MP4MetadataEncoder.box("stsz", writer.bytes)
    }

    /// `stco`, or `co64` when the data lies past 4 GiB (decided by
    /// ``usesLargeOffsets``, so the size doesn't depend on the value).
    private var chunkOffsets: [UInt8] {
        var writer = ByteWriter()
        writer.write(UInt32(0))
        writer.write(UInt32(1))
        if usesLargeOffsets {
            writer.write(UInt64(max(0, dataOffset)))
            return MP4MetadataEncoder.box("co64", writer.bytes)
        }
        writer.write(UInt32(clamping: dataOffset))
        return MP4MetadataEncoder.box("stco", writer.bytes)
    }

    /// The `tref` of a kept track: `chap` references to dropped tracks
    /// removed, the new track added to ``referrerID``'s; nil when the
    /// track's `tref` stays as it is. `.some(nil)` removes the `tref`.
    func trackReference(of trak: MP4Box, trackID: UInt32, source: FileSource) throws -> MP4Node?? {
        let adds = samples != nil && trackID == referrerID
        let tref = trak.child("tref")
        let chap = tref?.child("chap")
        var ids: [UInt32] = []
        if chap != nil {
            ids = try MP4TrackBoxes(trak: trak, source: source).references().first { $0.type == "chap" }?.trackIDs ?? []
        }
        var kept = ids.filter { !removedTrackIDs.contains($0) }
        if adds { kept.append(newTrackID) }
        guard kept != ids || (chap != nil && ids.isEmpty) else { return nil }
        var children: [MP4Node] = []
        var wrote = false
        for child in tref?.children ?? [] {
            if child.type == "chap" {
                if !wrote && !kept.isEmpty { children.append(.bytes(Self.chapBox(kept))) }
                wrote = true
            } else {
                children.append(.original(child.header))
            }
        }
        if !wrote && !kept.isEmpty { children.append(.bytes(Self.chapBox(kept))) }
        if let tail = tref?.damagedTail { children.append(tail) }
        return children.isEmpty ? .some(nil) : .container("tref", prefix: [], children: children)
    }

    static func chapBox(_ ids: [UInt32]) -> [UInt8] {
        var writer = ByteWriter()
        for id in ids { writer.write(id) }
        return MP4MetadataEncoder.box("chap", writer.bytes)
    }
}

extension MP4MoovRebuilder {
    /// A track of `moov` under a chapter edit: nil for a dropped chapter
    /// track; its `tref` rewritten when its `chap` references change (a new
    /// one goes before `mdia`); its chunk offsets moved by ``shift``.
    func chapterAwareTrack(_ trak: MP4Box) throws -> MP4Node? {
        guard let chapters else { return .original(trak.header) }
        let id = try MP4TrackBoxes(trak: trak, source: source).trackHeader()?.trackID
        if let id, chapters.removedTrackIDs.contains(id) { return nil }
        guard let id, let reference = try chapters.trackReference(of: trak, trackID: id, source: source) else {
            return shift == nil ? .original(trak.header) : try shifted(trak)
        }
        var children: [MP4Node] = []
        var placed = false
        for child in trak.children {
            if child.type == "tref" || (child.type == "mdia" && !placed) {
                if !placed, let reference { children.append(reference) }
                placed = true
                if child.type == "tref" { continue }
            }
            children.append(shift == nil ? .original(child.header) : try shifted(child))
        }
        if !placed, let reference { children.append(reference) }
        return .container("trak", prefix: [], children: children)
    }
}
