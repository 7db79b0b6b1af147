/// How much free space a tag gets, and when a tag's old space is reused —
/// one policy for every format that keeps padding (ID3v2, FLAC, the ID3 chunk
/// of WAV/AIFF).
///
/// A tag written anew gets 1 KiB plus 256 bytes per MiB of audio, at most
/// 64 KiB. A new tag goes into the old space whenever it fits, unless that
/// would leave more than 64 KiB of padding *and* more padding than content
/// (after removing a large picture, say): then it is written anew with the
/// default padding. Repeated saves don't drift: the space only grows when a
/// tag no longer fits, and only shrinks past the leftover limit.
import MetadataKitBytes

package struct PaddingPolicy: Sendable, Hashable {
    package var base = 1024
    var bytesPerMebibyte = 256
    package var maximum = 64 * 1024
    var maximumLeftover = 64 * 1024

    package static let standard = PaddingPolicy()

    /// Padding for a tag written anew before `audioBytes` bytes of audio.
    package func padding(audioBytes: Int64) -> Int {
        let extra = audioBytes / (1 << 20) * Int64(bytesPerMebibyte)
        return Int(min(Int64(maximum), Int64(base) + extra))
    }

    /// Whether `content` bytes go into an old space of `space` bytes.
    package func reuses(space: Int64, content: Int) -> Bool {
        let leftover = space - Int64(content)
        return leftover >= 0 && !(leftover > Int64(maximumLeftover) && leftover > Int64(content))
    }
}

/// The padding policy of ID3v2 tags (in MP3 files and WAV/AIFF chunks).
package typealias ID3v2PaddingPolicy = PaddingPolicy
/// The padding policy of FLAC metadata blocks.
package typealias FLACPaddingPolicy = PaddingPolicy
