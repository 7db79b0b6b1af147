/// Turns the warnings of a load (``MediaItem/warnings``) into findings: the
/// one place that decides which reader warning is which finding code.
///
/// Most warnings are local damage and become `read.<code>` (their
/// ``MediaError/Code``). Some say what they are in a way shared across
/// formats and get a code of their own:
/// - `flac.block-length`: a FLAC block whose length field disagrees with its
///   fields (the reader reads the right length; a save writes it).
/// - `id3.stacked`: an MP3's further ID3v2 tag, stacked after the first or
///   appended at the end (a save merges them; whether that loses frames is
///   decided by ``ID3Checks``).
/// - `audio.truncated`: the file ends inside its audio (a WAV `data` or AIFF
///   `SSND` chunk cut short, an ADTS frame past the end, an APE-family
///   stream shorter than its header says).
///
/// A warning whose message says a save repairs it ("a save writes the right
/// length", "a save adds the pad byte") is fixable by a plain save.
enum WarningFindings {
    static func findings(_ warnings: [MediaWarning], format: String, isEditable: Bool) -> [Finding] {
        warnings.map { finding(for: $0, format: format, isEditable: isEditable) }
    }

    static func finding(for warning: MediaWarning, format: String, isEditable: Bool) -> Finding {
        let message = warning.message
        let savedRight = ["a save writes", "a save adds", "a save merges"].contains { message.contains($0) }
        let fixable = isEditable && savedRight
        let note = fixable ? "a save rewrites it" : nil
        if format == "flac", message.contains("block's length field says") {
            return Finding(.flacBlockLength, .warning, message, byteOffset: warning.offset, isFixable: isEditable, fixNote: note)
        }
        if format == "mp3", message.contains("stacked after the first") || message.contains("appended at the end") {
            // Fixable only once ID3Checks found that merging loses no frame.
            return Finding(.id3Stacked, .warning, message, byteOffset: warning.offset)
        }
        if isAudioTruncation(warning) {
            return Finding(
                .audioTruncated, .error, message, byteOffset: warning.offset,
                fixNote: "the missing audio can't be brought back; re-rip or download the file again")
        }
        let severity: Finding.Severity = warning.code == .truncated ? .error : .warning
        return Finding(.read(warning.code), severity, message, byteOffset: warning.offset, isFixable: fixable, fixNote: note)
    }

    /// Whether the warning says the file ends inside its audio.
    static func isAudioTruncation(_ warning: MediaWarning) -> Bool {
        guard warning.code == .truncated || warning.code == .sizeOutOfRange else { return false }
        let message = warning.message
        let audioChunk = ["'data'", "'SSND'", "'DSD '", "audio"].contains { message.contains($0) }
        let cut = ["ends inside", "cut off by the end", "runs past the end of the audio", "past the end of the file", "ends early"]
            .contains { message.contains($0) }
        return audioChunk && cut
    }
}
