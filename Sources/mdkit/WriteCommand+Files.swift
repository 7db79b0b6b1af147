import MetadataKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files `mdkit write` may write (README, CLI section): `--output` as
/// `cp` without `-f` (an existing OUT needs `-y`), in the input's format;
/// a file without a write bit as `rm` treats it (refused unless `--force`,
/// whoever runs the tool, root too).
extension WriteCommand {
    /// Whether the command asks for no change at all (a usage error).
    var changesNothing: Bool {
        edits.isEmpty && artwork.isEmpty && !removesArtwork && lyrics == nil && chapterEdit == nil && options.isPlain
    }

    /// Why `--output` can't be written, nil when it can: an existing OUT
    /// without `-y`, or an OUT whose extension belongs to another format than FILE's.
    func refusedOutput(_ output: String, input: String) async -> (message: String, status: Int32)? {
        let pathExtension = URL(fileURLWithPath: output).pathExtension.lowercased()
        var item = MediaItem(url: URL(fileURLWithPath: input))
        if !pathExtension.isEmpty, (try? await item.load()) != nil, let type = item.fileType,
            let format = MediaFormat.named(type.identifier), !format.extensions.contains(pathExtension),
            let other = MediaFormat.first(withExtension: pathExtension)
        {
            return (
                "\(output): .\(pathExtension) is a \(other.name) extension, but \(input) is \(format.name) "
                    + "(OUT ends in \(ExportCommand.extensionList(format.extensions)))", 2
            )
        }
        do {
            try ExportCommand.refuseExisting(output, input: input, overwrite: overwrite)
        } catch {
            return (Report.errorMessage(error), 1)
        }
        return nil
    }

    /// Throws `readOnly` when `path` has no write bit for anyone and `--force` isn't given.
    func checkWritable(_ path: String) throws {
        guard !force else { return }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o222 == 0 else { return }
        throw MediaError(
            .readOnly, "the file is write-protected (mode \(String(info.st_mode & 0o7777, radix: 8))); give --force to write it anyway")
    }

    /// The bytes of `path` (a file an option names), or a usage error giving
    /// the system's reason (`strerror`) it can't be read.
    static func contents(of path: String, what: String) throws(UsageError) -> Data {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw UsageError("cannot read \(what) \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw UsageError("cannot read \(what) \(path): \(String(cString: strerror(errno)))") }
            if count == 0 { return data }
            data.append(contentsOf: chunk[..<count])
        }
    }
}

extension WriteCommand {
    /// The SECONDS of `--lock-wait`: a number of seconds, 0 or more (a
    /// fraction is taken: 0.25).
    static func lockWait(_ text: String) throws(UsageError) -> Duration {
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
            throw UsageError("--lock-wait needs a number of seconds from 0 to 86400, not '\(text)'")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
