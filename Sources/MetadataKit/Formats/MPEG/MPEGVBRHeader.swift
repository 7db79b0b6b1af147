#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The frame count and stream size a first "info" frame gives: the Xing
/// header (VBR, "Xing") or its CBR twin written by LAME ("Info"), or the
/// Fraunhofer VBRI header.
struct MPEGVBRHeader: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// "Xing": a VBR stream.
        case xing
        /// "Info": the same header on a CBR stream (LAME).
        case info
        /// "VBRI" (Fraunhofer encoder).
        case vbri
    }

    var kind: Kind
    /// Number of frames in the stream, when given.
    var frames: Int?
    /// Bytes in the stream, when given.
    var bytes: Int?

    /// True for a variable-bitrate stream.
    var isVariableBitrate: Bool { kind != .info }

    /// Looks for a header in `frame`, the first bytes of the frame with
    /// header `header`.
    ///
    /// Xing/Info: after the layer III side information — at 4 + 32/17/9 bytes.
    /// Flags (big-endian 32 bits): 1 frames, 2 bytes, 4 TOC, 8 quality; the
    /// fields follow in that order. VBRI: at 4 + 32 bytes; version (2),
    /// delay (2), quality (2), bytes (4), frames (4).
    init?(frame: [UInt8], header: MPEGFrameHeader) {
        guard header.layer == 3 else { return nil }
        func be32(_ i: Int) -> Int? {
            guard i >= 0, i + 4 <= frame.count else { return nil }
            return Int(frame[i]) << 24 | Int(frame[i + 1]) << 16 | Int(frame[i + 2]) << 8 | Int(frame[i + 3])
        }
        let xing = 4 + header.sideInfoLength
        if xing + 8 <= frame.count {
            let tag = frame[xing..<xing + 4]
            let isXing = tag.elementsEqual("Xing".utf8), isInfo = tag.elementsEqual("Info".utf8)
            if isXing || isInfo, let flags = be32(xing + 4) {
                kind = isXing ? .xing : .info
                var field = xing + 8
                if flags & 1 != 0 {
                    frames = be32(field)
                    field += 4
                }
                if flags & 2 != 0 { bytes = be32(field) }
                return
            }
        }
        let vbri = 4 + 32
        if vbri + 18 <= frame.count, frame[vbri..<vbri + 4].elementsEqual("VBRI".utf8) {
            kind = .vbri
            bytes = be32(vbri + 10)
            frames = be32(vbri + 14)
            return
        }
        return nil
    }
}
